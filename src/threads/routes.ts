import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../audit/audit.ts';
import type { Db } from '../db/connect.ts';
import { errors, IdParams, ManagementRead, ManagementWrite } from '../http/schemas.ts';
import { managedSite } from '../sites/repository.ts';
import { ThreadList, ThreadListQuery, ThreadParams, ThreadPatchBody, ThreadSchema } from './schemas.ts';
import { listThreads, updateThread } from './service.ts';

/** A site's threads for its moderators: counts, last activity, closing and reopening. */
export const threadRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get('/api/sites/:id/threads', {
    schema: {
      tags: ['threads'],
      summary: "A site's threads, newest first, with comments by status and last activity",
      security: ManagementRead,
      params: IdParams,
      querystring: ThreadListQuery,
      response: { 200: ThreadList, ...errors },
    },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'moderate');
      return listThreads(db.kysely, site, request.query);
    },
  });

  app.patch('/api/sites/:id/threads/:thread_id', {
    schema: {
      tags: ['threads'],
      summary: 'Close a thread to new comments (read-only), reopen it, or set its title',
      security: ManagementWrite,
      params: ThreadParams,
      body: ThreadPatchBody,
      response: { 200: ThreadSchema, ...errors },
    },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'moderate');
      return updateThread(db.kysely, site, request.params.thread_id, request.body, actorOf(request.caller));
    },
  });
};
