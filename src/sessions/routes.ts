import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf, audited } from '../audit/audit.ts';
import type { Db } from '../db/connect.ts';
import { Credential, errors, IdParams, ManagementRead, ManagementWrite, Timestamp } from '../http/schemas.ts';
import { managedSite } from '../sites/repository.ts';
import { createSession, endSessions, listSessions, revokeCurrentSession, revokeSession } from './service.ts';
import { NAME_PATTERN } from '../comments/text.ts';

const SessionUser = Type.Object({
  id: Type.String({ description: 'usr_<id>' }),
  external_id: Type.String({ description: "The site's own user id" }),
  name: Type.String(),
  avatar_url: Type.Union([Type.String(), Type.Null()]),
  moderator: Type.Boolean(),
});

const ManagedSession = Type.Object({
  id: Type.String({ description: 'sess_<id>; the token itself is never shown again' }),
  user: Type.Object({ id: Type.String({ description: 'usr_<id>' }), external_id: Type.String(), name: Type.String() }),
  moderator: Type.Boolean(),
  key_id: Type.Union([Type.String(), Type.Null()], { description: 'The API key that minted the session; revoking it ends the session' }),
  created_at: Timestamp,
  expires_at: Timestamp,
  revoked_at: Type.Union([Timestamp, Type.Null()]),
});

const UserFilter = Type.String({ maxLength: 100, description: 'usr_<id>: only this user\'s sessions' });

const SessionParams = Type.Object({ id: IdParams.properties.id, session_id: IdParams.properties.id });

export const sessionRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.post('/v1/sessions', {
    schema: {
      tags: ['sessions'],
      summary: "Sign one of the site's users in for the widget (API key only)",
      security: Credential,
      body: Type.Object({
        site_id: Type.String({ maxLength: 100 }),
        user: Type.Object({
          id: Type.String({ description: "The site's own user id" }),
          name: Type.String({
            pattern: NAME_PATTERN,
            description: "The user's display name, their comments' author_name; refused (400) with a bidirectional control or zero-width character",
          }),
          avatar_url: Type.Optional(Type.Union([Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 }), Type.Null()])),
          moderator: Type.Optional(Type.Boolean()),
        }),
      }),
      response: {
        201: Type.Object({ token: Type.String({ description: 'sess_<random>; send as Authorization: Bearer' }), expires_at: Timestamp, user: SessionUser }),
        ...errors,
      },
    },
    handler: async (request, reply) => reply.code(201).send(await createSession(db, request.caller, request.body)),
  });

  app.delete('/v1/sessions/current', {
    schema: { tags: ['sessions'], summary: 'Sign out: revoke the session token of this request', security: Credential, response: { 204: Type.Null(), ...errors } },
    handler: async (request, reply) => {
      await revokeCurrentSession(db, request.caller);
      return reply.code(204).send(null);
    },
  });

  app.get('/api/sites/:id/sessions', {
    schema: {
      tags: ['sessions'],
      summary: "The site's live sessions (neither revoked nor expired), newest first",
      security: ManagementRead,
      params: IdParams,
      querystring: Type.Object({
        user_id: Type.Optional(UserFilter),
        page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
      }),
      response: { 200: Type.Object({ sessions: Type.Array(ManagedSession), total: Type.Integer(), page: Type.Integer() }), ...errors },
    },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      const { user_id: userId, page = 1, limit = 20 } = request.query;
      return listSessions(db.kysely, site, { userId, page, limit });
    },
  });

  app.delete('/api/sites/:id/sessions', {
    schema: {
      tags: ['sessions'],
      summary: 'End every live session of the site, or of one of its users',
      security: ManagementWrite,
      params: IdParams,
      querystring: Type.Object({ user_id: Type.Optional(UserFilter) }),
      response: { 200: Type.Object({ revoked: Type.Integer({ description: 'How many live sessions ended' }) }), ...errors },
    },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      const scope = { siteId: site.id, userId: request.query.user_id };
      const entry = { accountId: site.accountId, actor: actorOf(request.caller), action: 'sessions.ended', target: site.id, data: { user_id: scope.userId ?? null } };
      return { revoked: await audited(db.kysely, entry, (trx) => endSessions(trx, scope)) };
    },
  });

  app.delete('/api/sites/:id/sessions/:session_id', {
    schema: {
      tags: ['sessions'],
      summary: 'End one session of the site; idempotent',
      security: ManagementWrite,
      params: SessionParams,
      response: { 200: ManagedSession, ...errors },
    },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      const entry = { accountId: site.accountId, actor: actorOf(request.caller), action: 'session.ended', target: request.params.session_id, data: { site_id: site.id } };
      return audited(db.kysely, entry, (trx) => revokeSession(trx, site, request.params.session_id));
    },
  });
};
