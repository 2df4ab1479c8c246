import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../db/connect.ts';
import { Credential, errors, IdParams, ManagementRead, ManagementWrite } from '../http/schemas.ts';
import { listContests } from './list.ts';
import { ContestBody, ContestPage, ContestQuery, ContestSchema, NewContest, ResolveBody } from './schemas.ts';
import { contestDecision, resolveContest } from './service.ts';

/** Readers contest decisions on their comments; the site's moderators answer them. */
export const contestRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.post('/v1/comments/:id/contest', {
    schema: {
      tags: ['moderation'],
      summary: "Contest a moderator's decision on one's own comment (its author's session only)",
      description:
        'For a comment now removed, marked spam or held for review. One open contest per comment (409 while one waits); ' +
        'a decision upheld once cannot be contested again (409), a later decision on the comment can. The site\'s moderators answer in the dashboard.',
      security: Credential,
      params: IdParams,
      body: ContestBody,
      response: { 201: NewContest, ...errors },
    },
    handler: async (request, reply) => reply.code(201).send(await contestDecision(db, request.caller, request.params.id, request.body.message)),
  });

  app.get('/api/contests', {
    schema: {
      tags: ['moderation'],
      summary: 'Contested decisions of every site the caller moderates (or one): open ones oldest first, or resolved ones latest first',
      security: ManagementRead,
      querystring: ContestQuery,
      response: { 200: ContestPage, ...errors },
    },
    handler: (request) => listContests(db, request.caller, request.query),
  });

  app.post('/api/contests/:id/resolve', {
    schema: {
      tags: ['moderation'],
      summary: 'Answer a contest: reverse the decision (the comment is approved) or uphold it; the reader is told, with the note',
      description: 'reversed approves the comment as PATCH /v1/comments/{id}/moderate does (moderation log, moderation.action and comment.approved), with the note as its reason. A contest resolved already: 409.',
      security: ManagementWrite,
      params: IdParams,
      body: ResolveBody,
      response: { 200: ContestSchema, ...errors },
    },
    handler: (request) => resolveContest(db, request.caller, request.params.id, request.body.outcome, request.body.note ?? null),
  });
};
