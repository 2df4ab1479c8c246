import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../db/connect.ts';
import { errors, IdParams, OptionalCredential } from '../http/schemas.ts';
import { setVote, toggleReaction } from './service.ts';

const VoteResult = Type.Object({
  upvotes: Type.Integer(),
  downvotes: Type.Integer(),
  user_vote: Type.Union([Type.Literal('up'), Type.Literal('down'), Type.Null()]),
  liked_by_site_owner: Type.Boolean({ description: 'Upvoted by an admin key or a moderator' }),
});

const ReactionResult = Type.Object({
  reaction_counts: Type.Record(Type.String(), Type.Integer()),
  user_reaction: Type.Union([Type.String(), Type.Null()]),
});

export const voteRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.post('/v1/comments/:id/vote', {
    schema: {
      tags: ['votes and reactions'],
      summary: 'Vote up or down; the same vote again changes nothing, the other one switches (guests, one vote per IP range, where the site allows it)',
      security: OptionalCredential,
      params: IdParams,
      body: Type.Object({ vote_type: Type.Union([Type.Literal('up'), Type.Literal('down')]) }),
      response: { 200: VoteResult, ...errors },
    },
    config: { guestVote: true },
    handler: (request) => setVote(db, request.caller, request.params.id, request.body.vote_type),
  });

  app.delete('/v1/comments/:id/vote', {
    schema: {
      tags: ['votes and reactions'],
      summary: "Remove the caller's vote",
      security: OptionalCredential,
      params: IdParams,
      response: { 200: VoteResult, ...errors },
    },
    config: { guestVote: true },
    handler: (request) => setVote(db, request.caller, request.params.id, null),
  });

  app.post('/v1/comments/:id/react', {
    schema: {
      tags: ['votes and reactions'],
      summary: 'Toggle a reaction: the same type again removes it, another type replaces it (guests, one per IP range, where the site allows it)',
      security: OptionalCredential,
      params: IdParams,
      body: Type.Object({ reaction_type: Type.String({ maxLength: 50, description: "One of the site's reactions" }) }),
      response: { 200: ReactionResult, ...errors },
    },
    config: { guestVote: true },
    handler: (request) => toggleReaction(db, request.caller, request.params.id, request.body.reaction_type),
  });
};
