import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../db/connect.ts';
import { Credential, errors, IdParams, OptionalCredential } from '../http/schemas.ts';
import { ModerationResultSchema, Reason } from './schemas.ts';
import { flagComment, MODERATION_ACTIONS, moderateComment } from './service.ts';

export const moderationRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.patch('/v1/comments/:id/moderate', {
    schema: {
      tags: ['moderation'],
      summary: 'Apply a moderation action (moderators only)',
      security: Credential,
      params: IdParams,
      body: Type.Object({
        action: Type.Enum([...MODERATION_ACTIONS]),
        reason: Type.Optional(Type.Union([Reason, Type.Null()])),
      }),
      response: { 200: ModerationResultSchema, ...errors },
    },
    handler: (request) =>
      moderateComment(db, request.caller, request.params.id, request.body.action, request.body.reason ?? null),
  });

  app.post('/v1/comments/:id/flag', {
    schema: {
      tags: ['moderation'],
      summary: 'Flag a comment for the moderators (anyone, once)',
      security: OptionalCredential,
      params: IdParams,
      body: Type.Optional(Type.Object({ reason: Type.Optional(Type.Union([Reason, Type.Null()])) })),
      response: { 200: Type.Object({ comment_id: Type.String(), flagged: Type.Boolean() }), ...errors },
    },
    // The body is optional: a bare POST flags without a reason.
    preValidation: async (request) => {
      request.body ??= {};
    },
    handler: (request) => flagComment(db, request.caller, request.params.id, request.body?.reason ?? null),
  });
};
