import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../db/connect.ts';
import { errors, IdParams, ManagementRead } from '../http/schemas.ts';
import { managedSite } from '../sites/repository.ts';
import { SiteStats } from './schemas.ts';
import { siteStats } from './service.ts';

export const statsRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get('/api/sites/:id/stats', {
    schema: {
      tags: ['stats'],
      summary: "A site's figures: comments per day for 90 days by status, pending count, top threads, webhook success rate",
      security: ManagementRead,
      params: IdParams,
      response: { 200: SiteStats, ...errors },
    },
    handler: async (request) => siteStats(db.kysely, await managedSite(db.kysely, request.caller, request.params.id, 'moderate')),
  });
};
