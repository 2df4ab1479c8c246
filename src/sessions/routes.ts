import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../db/connect.ts';
import { Credential, errors, Timestamp } from '../http/schemas.ts';
import { createSession, revokeCurrentSession } from './service.ts';

const SessionUser = Type.Object({
  id: Type.String({ description: 'usr_<id>' }),
  external_id: Type.String({ description: "The site's own user id" }),
  name: Type.String(),
  avatar_url: Type.Union([Type.String(), Type.Null()]),
  moderator: Type.Boolean(),
});

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
          name: Type.String(),
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
};
