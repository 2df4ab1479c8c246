import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/connect.ts';
import { errors, IdParams, ManagementRead, Nullable } from '../../http/schemas.ts';
import { managedSite } from '../../sites/repository.ts';
import { CLASSIFIER_MODES } from '../settings.ts';
import { classifierStats } from './stats.ts';

const Count = Type.Integer({ minimum: 0 });

export const ClassifierStats = Type.Object({
  mode: Type.Enum([...CLASSIFIER_MODES]),
  threshold: Type.Number(),
  min_examples: Count,
  spam_examples: Type.Integer({ minimum: 0, description: 'Comments moderators marked spam, removed as spam or shadow-banned, that it learnt from' }),
  ham_examples: Type.Integer({ minimum: 0, description: 'Comments moderators approved or unhid, that it learnt from' }),
  active: Type.Boolean({ description: 'Whether it holds comments now: on, and min_examples learnt of each kind' }),
  holds: Type.Integer({ minimum: 0, description: 'Comments it held' }),
  agreed: Type.Integer({ minimum: 0, description: 'Comments it held that the first moderator to decide marked spam (or removed as spam, or shadow-banned)' }),
  disagreed: Type.Integer({ minimum: 0, description: 'Comments it held that the first moderator to decide approved or unhid' }),
  agreement_rate: Nullable(Type.Number({ minimum: 0, maximum: 1 }), { description: 'agreed / (agreed + disagreed); null before any decision on a hold' }),
});

export const classifierRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get('/api/sites/:id/classifier', {
    schema: {
      tags: ['stats'],
      summary: "The site's spam classifier: its setting, what it has learnt, whether it holds comments, and how often moderators agreed with it",
      security: ManagementRead,
      params: IdParams,
      response: { 200: ClassifierStats, ...errors },
    },
    handler: async (request) => classifierStats(db.kysely, await managedSite(db.kysely, request.caller, request.params.id, 'moderate')),
  });
};
