import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../db/connect.ts';
import { EVENT_TYPES } from '../events/record.ts';
import { errors, IdParams, ManagementRead, ManagementWrite, Timestamp } from '../http/schemas.ts';
import { managedSite } from '../sites/repository.ts';
import { DELIVERY_STATES } from './repository.ts';
import { deliveryLog, deliveryPolicy, redeliver, sendTestDelivery } from './service.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const Delivery = Type.Object({
  id: Type.String({ description: 'del_<id>, sent as X-Service-Delivery and webhook-id on every attempt' }),
  event: Type.String(),
  state: Type.Enum([...DELIVERY_STATES]),
  test: Type.Boolean({ description: 'A sample sent by POST /api/sites/:id/webhooks/test (or a chat alert\'s test)' }),
  attempts: Type.Array(
    Type.Object({
      number: Type.Integer({ minimum: 1 }),
      at: Timestamp,
      status_code: Nullable(Type.Integer()),
      duration_ms: Type.Integer(),
      error: Nullable(
        Type.String({
          description:
            'null on a 2xx; else timeout, blocked_address, dns_failed, connection_refused, connection_reset, tls_error, connection_failed, redirect_not_followed, unexpected_status, webhook_disabled or (a chat alert removed since) alert_removed',
        }),
      ),
    }),
  ),
  next_attempt_at: Nullable(Timestamp),
  created_at: Timestamp,
  body: Type.String({ description: 'The JSON body every attempt sent, exactly as sent (for a webhook, what the signatures cover)' }),
});

const DeliveryParams = Type.Object({ id: IdParams.properties.id, deliveryId: IdParams.properties.id });

export const webhookRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get('/api/sites/:id/webhooks/deliveries', {
    schema: {
      tags: ['webhooks'],
      summary: "The site's webhook deliveries, newest first, with every attempt",
      security: ManagementRead,
      params: IdParams,
      querystring: Type.Object({
        page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
        event: Type.Optional(Type.Enum([...EVENT_TYPES])),
        state: Type.Optional(Type.Enum([...DELIVERY_STATES])),
      }),
      response: {
        200: Type.Object({ deliveries: Type.Array(Delivery), total: Type.Integer(), page: Type.Integer() }),
        ...errors,
      },
    },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      const { page = 1, limit = 20, event, state } = request.query;
      return deliveryLog(db.kysely, site, { alertId: null, page, limit, event, state });
    },
  });

  app.post('/api/sites/:id/webhooks/deliveries/:deliveryId/redeliver', {
    schema: {
      tags: ['webhooks'],
      summary: 'Queue a succeeded or failed delivery again (same id and body, a fresh retry schedule)',
      security: ManagementWrite,
      params: DeliveryParams,
      response: { 200: Delivery, ...errors },
    },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      return redeliver(db.kysely, site, request.params.deliveryId);
    },
  });

  app.post('/api/sites/:id/webhooks/test', {
    schema: {
      tags: ['webhooks'],
      summary: 'Send a signed sample delivery ("test": true) now and answer with the attempt',
      security: ManagementWrite,
      params: IdParams,
      body: Type.Optional(Type.Object({ event: Type.Optional(Type.Enum([...EVENT_TYPES], { default: 'comment.created' })) })),
      response: { 200: Delivery, ...errors },
    },
    // The body is optional: a bare POST sends a comment.created sample.
    preValidation: async (request) => {
      request.body ??= {};
    },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      return sendTestDelivery(db.kysely, site, request.body?.event ?? 'comment.created', deliveryPolicy(app.config));
    },
  });
};
