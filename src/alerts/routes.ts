import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../db/connect.ts';
import { errors, IdParams, ManagementRead, ManagementWrite, Timestamp } from '../http/schemas.ts';
import { managedSite } from '../sites/repository.ts';
import { DELIVERY_STATES } from '../webhooks/repository.ts';
import { Delivery } from '../webhooks/routes.ts';
import { deliveryPolicy } from '../webhooks/service.ts';
import { ALERT_EVENTS, ALERT_KINDS } from './repository.ts';
import { alertDeliveries, alertsOf, changeAlert, createAlert, removeAlert, sendTestAlert } from './service.ts';

const TargetInput = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'Slack or Discord: the incoming-webhook URL. Telegram: the Bot API base URL (https://api.telegram.org). Matrix: the homeserver URL' }),
    token: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: "Telegram: the bot's token; Matrix: the access token of the user that posts. Left out of a PATCH: the stored one is kept" })),
    chat_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Telegram: the chat (an id, or @channelname)' })),
    room: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Matrix: the room id (!abc123:example.org) the user has joined' })),
  },
  { additionalProperties: false },
);

const Events = Type.Array(Type.Enum([...ALERT_EVENTS]), {
  minItems: 1,
  maxItems: ALERT_EVENTS.length,
  description: 'comment.held: a comment held for approval on arrival; comment.flagged: the readers who flagged a comment reach flag_threshold (once per comment); comment.first: a reader\'s first comment on the site',
});
const FlagThreshold = Type.Integer({ minimum: 1, maximum: 1000, description: 'Readers flagging a comment that make a comment.flagged alert (default 1)' });

const Alert = Type.Object({
  id: Type.String({ description: 'alr_<id>' }),
  site_id: Type.String(),
  kind: Type.Enum([...ALERT_KINDS]),
  target: Type.Object({
    url: Type.String(),
    chat_id: Type.Union([Type.String(), Type.Null()]),
    room: Type.Union([Type.String(), Type.Null()]),
    token_set: Type.Boolean({ description: 'Whether a token is stored; it is never shown' }),
  }),
  events: Type.Array(Type.Enum([...ALERT_EVENTS])),
  flag_threshold: Type.Integer(),
  created_at: Timestamp,
});

const AlertParams = Type.Object({ id: IdParams.properties.id, alertId: IdParams.properties.id });

/** A site's chat alerts: its admins' (like its webhooks), read and written. */
export const alertRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const policy = deliveryPolicy(app.config);

  app.get('/api/sites/:id/alerts', {
    schema: { tags: ['alerts'], summary: "The site's chat alerts", security: ManagementRead, params: IdParams, response: { 200: Type.Object({ alerts: Type.Array(Alert) }), ...errors } },
    handler: async (request) => alertsOf(db.kysely, await managedSite(db.kysely, request.caller, request.params.id, 'administer')),
  });

  app.post('/api/sites/:id/alerts', {
    schema: {
      tags: ['alerts'],
      summary: 'Send chosen moderation events to a Slack, Discord, Telegram or Matrix chat',
      security: ManagementWrite,
      params: IdParams,
      body: Type.Object({ kind: Type.Enum([...ALERT_KINDS]), target: TargetInput, events: Events, flag_threshold: Type.Optional(FlagThreshold) }, { additionalProperties: false }),
      response: { 201: Alert, ...errors },
    },
    handler: async (request, reply) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      return reply.code(201).send(await createAlert(db.kysely, site, request.body, policy));
    },
  });

  app.patch('/api/sites/:id/alerts/:alertId', {
    schema: {
      tags: ['alerts'],
      summary: "Change an alert's target, events or flag threshold (its kind stays)",
      security: ManagementWrite,
      params: AlertParams,
      body: Type.Object({ target: Type.Optional(TargetInput), events: Type.Optional(Events), flag_threshold: Type.Optional(FlagThreshold) }, { additionalProperties: false }),
      response: { 200: Alert, ...errors },
    },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      return changeAlert(db.kysely, site, request.params.alertId, request.body, policy);
    },
  });

  app.delete('/api/sites/:id/alerts/:alertId', {
    schema: {
      tags: ['alerts'],
      summary: 'Remove an alert: nothing more is sent to it, messages still pending included',
      security: ManagementWrite,
      params: AlertParams,
      response: { 204: Type.Null(), ...errors },
    },
    handler: async (request, reply) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      await removeAlert(db.kysely, site, request.params.alertId);
      return reply.code(204).send(null);
    },
  });

  app.post('/api/sites/:id/alerts/:alertId/test', {
    schema: {
      tags: ['alerts'],
      summary: 'Send a sample message to the alert now and answer with the attempt',
      security: ManagementWrite,
      params: AlertParams,
      response: { 200: Delivery, ...errors },
    },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      return sendTestAlert(db.kysely, site, request.params.alertId, policy);
    },
  });

  app.get('/api/sites/:id/alerts/:alertId/deliveries', {
    schema: {
      tags: ['alerts'],
      summary: "The alert's messages, newest first, with every attempt and the body as sent",
      security: ManagementRead,
      params: AlertParams,
      querystring: Type.Object({
        page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
        state: Type.Optional(Type.Enum([...DELIVERY_STATES])),
      }),
      response: { 200: Type.Object({ deliveries: Type.Array(Delivery), total: Type.Integer(), page: Type.Integer() }), ...errors },
    },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      const { page = 1, limit = 20, state } = request.query;
      return alertDeliveries(db.kysely, site, request.params.alertId, { page, limit, state }, policy.publicUrl);
    },
  });
};
