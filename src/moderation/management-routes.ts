import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../db/connect.ts';
import { errors, IdParams, ManagementRead, ManagementWrite } from '../http/schemas.ts';
import { managedSite } from '../sites/repository.ts';
import { moderateMany } from './bulk.ts';
import { queueCounts } from './counts.ts';
import { listFlags } from './flags.ts';
import { moderationLog } from './log.ts';
import { moderationQueue } from './queue.ts';
import { listRevisions } from './revisions.ts';
import { BulkBody, BulkResponse, CountsQuerySchema, FlagList, LogPage, LogQuerySchema, QueueCountsSchema, QueuePage, QueueQuerySchema, RevisionList, UndoBody } from './schemas.ts';
import { undoMany } from './undo.ts';

/** The management side of moderation: the queue across sites, bulk actions, flags, the log. */
export const moderationManagementRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get('/api/comments', {
    schema: {
      tags: ['moderation'],
      summary: 'The moderation queue: comments of every site the caller moderates (or one), filtered, a cursor page at a time',
      description:
        'Each item carries its thread, its parent\'s excerpt, its flags with their reasons, and its author\'s comments by status. ' +
        'Pages follow next_cursor and stay correct while comments arrive. q searches content and author name (every word must appear).',
      security: ManagementRead,
      querystring: QueueQuerySchema,
      response: { 200: QueuePage, ...errors },
    },
    handler: (request) => moderationQueue(db, request.caller, request.query),
  });

  app.get('/api/comments/counts', {
    schema: {
      tags: ['moderation'],
      summary: "How many comments wait in the queue's tabs: pending, flagged, spam and removed",
      description: 'Over one site (site_id) or every site the caller moderates; the same statuses as the queue\'s status filter.',
      security: ManagementRead,
      querystring: CountsQuerySchema,
      response: { 200: QueueCountsSchema, ...errors },
    },
    handler: (request) => queueCounts(db, request.caller, request.query.site_id),
  });

  app.post('/api/comments/moderate', {
    schema: {
      tags: ['moderation'],
      summary: 'Apply one action to up to 100 comments; answered per id',
      description:
        'Each id is moderated as PATCH /v1/comments/{id}/moderate moderates one (same rules, log and events), in its own transaction. ' +
        'dismiss_flags dismisses the flags waiting on a comment. An id the caller cannot moderate gets its own error; the others go ahead.',
      security: ManagementWrite,
      body: BulkBody,
      response: { 200: BulkResponse, ...errors },
    },
    handler: (request) => moderateMany(db, request.caller, request.body.ids, request.body.action, request.body.reason ?? null),
  });

  app.post('/api/comments/moderate/undo', {
    schema: {
      tags: ['moderation'],
      summary: "Undo the caller's own last action on up to 100 comments, within 60 s; answered per id",
      description:
        'Each comment goes back to its status, moderation status and flags as they were before the action; a shadow ban the action made is lifted, ' +
        'one it lifted is made again. Logged and emitted as moderation.action `undo`. An id whose last action is not the caller\'s, is older ' +
        'than 60 s, is an undo, or after which the comment changed, gets its own 409 conflict; the others go ahead.',
      security: ManagementWrite,
      body: UndoBody,
      response: { 200: BulkResponse, ...errors },
    },
    handler: (request) => undoMany(db, request.caller, request.body.ids),
  });

  app.get('/api/comments/:id/flags', {
    schema: {
      tags: ['moderation'],
      summary: "A comment's flags, newest first, with their reasons (dismissed ones too)",
      security: ManagementRead,
      params: IdParams,
      response: { 200: FlagList, ...errors },
    },
    handler: (request) => listFlags(db, request.caller, request.params.id),
  });

  app.get('/api/comments/:id/revisions', {
    schema: {
      tags: ['moderation'],
      summary: "A comment's earlier versions, oldest first: each text an edit replaced, when it was written and when replaced",
      description: "Kept for the site's moderators. A deleted comment's go with its text, and an erased user's with their data.",
      security: ManagementRead,
      params: IdParams,
      response: { 200: RevisionList, ...errors },
    },
    handler: (request) => listRevisions(db, request.caller, request.params.id),
  });

  app.get('/api/sites/:id/moderation-log', {
    schema: {
      tags: ['moderation'],
      summary: "A site's moderation log, newest first: who, what, when, which comment, why",
      security: ManagementRead,
      params: IdParams,
      querystring: LogQuerySchema,
      response: { 200: LogPage, ...errors },
    },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'moderate');
      return moderationLog(db, site, request.query);
    },
  });
};
