import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../db/connect.ts';
import { Credential, errors, IdParams } from '../http/schemas.ts';
import { Follow, FollowBody, FollowList, FollowsQuery, NotificationList, NotificationsQuery, ReadAnswer, ReadBody } from './schemas.ts';
import { follow, follows, notifications, readNotifications, stopFollowing } from './service.ts';
import { unreadCount } from './unread.ts';

const NOTIFICATIONS = { tags: ['notifications'], security: Credential };

/**
 * A signed-in reader's follows and notifications, on the site of their session: no credential 401,
 * an API key 403, another site's session 404.
 */
export const notificationRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.post('/v1/follows', {
    schema: {
      ...NOTIFICATIONS,
      summary: 'Follow a page: the reader is told of every new comment the public sees there',
      description: 'Answers 201 with the new follow, or 200 with the one the reader already has. The page need not have a comment yet.',
      body: FollowBody,
      response: { 200: Follow, 201: Follow, ...errors },
    },
    handler: async (request, reply) => {
      const { follow: made, made: isNew } = await follow(db, request.caller, request.body);
      return reply.code(isNew ? 201 : 200).send(made);
    },
  });

  app.delete('/v1/follows/:id', {
    schema: { ...NOTIFICATIONS, summary: 'Stop following a page (the reader\'s own follows only; others 404)', params: IdParams, response: { 204: Type.Null(), ...errors } },
    handler: async (request, reply) => {
      await stopFollowing(db, request.caller, request.params.id);
      return reply.code(204).send(null);
    },
  });

  app.get('/v1/follows', {
    schema: { ...NOTIFICATIONS, summary: 'The pages the reader follows, newest first', querystring: FollowsQuery, response: { 200: FollowList, ...errors } },
    handler: (request) => follows(db, request.caller, request.query),
  });

  app.get('/v1/notifications', {
    schema: {
      ...NOTIFICATIONS,
      summary: "The reader's notifications, newest first, and how many are unread",
      description: 'Replies to the reader, mentions of them, new comments in pages they follow, and moderators\' decisions on their comments (with the reason given).',
      querystring: NotificationsQuery,
      response: { 200: NotificationList, ...errors },
    },
    handler: async (request) => {
      const { reader, ...page } = await notifications(db, request.caller, request.query);
      return { ...page, unread: await unreadCount(db.kysely, reader) };
    },
  });

  app.post('/v1/notifications/read', {
    schema: {
      ...NOTIFICATIONS,
      summary: "Mark the reader's notifications read: `ids` (up to 100), or `all: true`",
      description: 'Ids that are not the reader\'s are passed over. Answers the unread count after.',
      body: ReadBody,
      response: { 200: ReadAnswer, ...errors },
    },
    handler: async (request) => {
      const reader = await readNotifications(db, request.caller, request.body);
      return { unread: await unreadCount(db.kysely, reader) };
    },
  });
};
