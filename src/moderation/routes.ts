import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorRef } from '../auth/caller.ts';
import type { Db } from '../db/connect.ts';
import { lockAuthor } from '../db/dialect.ts';
import { AppError } from '../errors.ts';
import { withEvents } from '../events/record.ts';
import { Credential, errors, IdParams, OptionalCredential, Timestamp } from '../http/schemas.ts';
import { findSiteToAdminister } from '../sites/repository.ts';
import { BAN_TYPES, banAuthor } from './bans.ts';
import { flagComment, MODERATION_ACTIONS, moderateComment } from './service.ts';

const Reason = Type.String({ maxLength: 500 });

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
      response: {
        200: Type.Object({
          id: Type.String(),
          action: Type.String(),
          status: Type.String(),
          moderation_status: Type.Union([Type.String(), Type.Null()]),
          content: Type.Union([Type.String(), Type.Null()]),
          author_name: Type.String(),
        }),
        ...errors,
      },
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

  app.post('/api/sites/:id/bans', {
    schema: {
      tags: ['sites'],
      summary: "Ban a site user: 'ban' refuses their writes, 'shadow_ban' hides their comments from others",
      security: Credential,
      params: IdParams,
      body: Type.Object({
        user_id: Type.String({ maxLength: 100, description: 'usr_<id> of a site user' }),
        ban_type: Type.Optional(Type.Enum([...BAN_TYPES], { default: 'ban' })),
        reason: Type.Optional(Type.Union([Reason, Type.Null()])),
      }),
      response: {
        201: Type.Object({
          id: Type.String(),
          site_id: Type.String(),
          user_id: Type.String(),
          ban_type: Type.String(),
          reason: Type.Union([Type.String(), Type.Null()]),
          created_at: Timestamp,
        }),
        ...errors,
      },
    },
    handler: async (request, reply) => {
      const site = await findSiteToAdminister(db.kysely, request.caller, request.params.id);
      const { user_id: userId, ban_type: type = 'ban', reason = null } = request.body;
      const user = await db.kysely.selectFrom('site_users').select('id').where('id', '=', userId).where('site_id', '=', site.id).executeTakeFirst();
      if (!user) throw new AppError('not_found', `No user ${userId} on this site`);
      const bannedBy = actorRef(request.caller)!;
      const ban = await withEvents(db, async (trx) => {
        await lockAuthor(db.dialect, trx, site.id, userId);
        return banAuthor(trx, site, userId, type, reason, bannedBy);
      });
      if (!ban) throw new AppError('conflict', `User ${userId} already has a ${type} on this site`);
      if (type === 'shadow_ban') db.changes.siteChanged(site.id);
      return reply.code(201).send(ban);
    },
  });
};
