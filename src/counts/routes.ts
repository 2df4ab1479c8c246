import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { CommentCaches } from '../comments/caches.ts';
import { MAX_THREAD_URL } from '../comments/thread-url.ts';
import type { Db } from '../db/connect.ts';
import { sendWithEtag } from '../http/etag.ts';
import { errors, OptionalCredential } from '../http/schemas.ts';

export const MAX_COUNTED_URLS = 100;

const CountsQuery = Type.Object({
  site_id: Type.String({ maxLength: 100 }),
  url: Type.Array(Type.String({ maxLength: 4096 }), {
    minItems: 1,
    maxItems: MAX_COUNTED_URLS,
    description: `Thread URLs (repeat the parameter), 1 to ${MAX_COUNTED_URLS}; each an absolute http(s) URL of at most ${MAX_THREAD_URL} characters, read as GET /v1/comments reads thread_url`,
  }),
});

const Counts = Type.Object({
  counts: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
    description:
      'By each URL exactly as sent: the comments the public sees in its thread (published, not deleted, not hidden by moderation, ' +
      "not under a hidden comment). 0 for a thread with none, one that does not exist, or a URL outside the site's domains (as its list is empty)",
  }),
});

export const countRoutes: FastifyPluginAsyncTypebox<{ db: Db; caches: CommentCaches }> = async (app, { db, caches }) => {
  app.get('/v1/counts', {
    schema: {
      tags: ['comments'],
      summary: "Comment counts of up to 100 threads of a site (an index page's \"12 comments\")",
      description:
        'Every caller gets the public\'s counts. Counts are kept in memory per thread until a write to it, so an index page asking again is answered without the database. ' +
        'Carries an ETag; a request whose If-None-Match names it gets 304 and no body.',
      security: OptionalCredential,
      querystring: CountsQuery,
      response: { 200: Counts, 304: Type.Null({ description: 'Not modified: the If-None-Match entity tag is current' }), ...errors },
    },
    handler: async (request, reply) => {
      const { site_id, url } = request.query;
      return sendWithEtag(request, reply, await caches.counts.answer(db, request.url, site_id, url));
    },
  });
};
