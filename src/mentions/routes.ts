import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { MentionSchema } from '../comments/schemas.ts';
import type { Db } from '../db/connect.ts';
import { errors, OptionalCredential } from '../http/schemas.ts';
import { MAX_PARTICIPANTS, RECENT_COMMENTS, threadParticipants } from './participants.ts';

const ParticipantsQuery = Type.Object({
  site_id: Type.String({ maxLength: 100 }),
  thread_url: Type.String({ description: 'Absolute http(s) URL of the page, without a user name or password', maxLength: 2048 }),
});

const Participants = Type.Object({
  participants: Type.Array(MentionSchema, {
    maxItems: MAX_PARTICIPANTS,
    description: `Most recent first, each once, at most ${MAX_PARTICIPANTS}; empty for a thread without comments`,
  }),
});

export const mentionRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get('/v1/comments/participants', {
    schema: {
      tags: ['comments'],
      summary: "The people a comment in this thread can mention: the site users who wrote the thread's latest comments the public sees",
      description:
        "What the widget suggests after `@`, to be written into a comment as `@[Name](usr_…)`. " +
        `The authors of the thread's latest ${RECENT_COMMENTS.toLocaleString('en')} public comments; ` +
        'guests, API keys, staff and erased users are not listed. ' +
        'The same for every caller; limited as reads are.',
      security: OptionalCredential,
      querystring: ParticipantsQuery,
      response: { 200: Participants, ...errors },
    },
    handler: async (request) => ({ participants: await threadParticipants(db.kysely, request.query.site_id, request.query.thread_url) }),
  });
};
