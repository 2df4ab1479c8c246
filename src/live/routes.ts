import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { threadKey } from '../comments/thread-url.ts';
import type { Db } from '../db/connect.ts';
import { AppError } from '../errors.ts';
import { errors, OptionalCredential } from '../http/schemas.ts';
import { siteOrNotFound } from '../sites/repository.ts';
import type { LiveHub } from './hub.ts';
import { LIVE_EVENT_TYPES } from './record.ts';

const SEQ = '^[0-9]{1,15}$';
/** How soon a refused client (too many streams) may try again, in seconds. */
const RETRY_AFTER_SECONDS = 30;

const DESCRIPTION =
  'Server-Sent Events (text/event-stream). Each message has `data`: JSON with `type` — ' +
  `${LIVE_EVENT_TYPES.map((t) => `\`${t}\``).join(', ')}, \`ready\` or \`reset\` — and \`comment\` (the comment as the public sees it) ` +
  'or `comment_id` (with `upvotes`, `downvotes` and `reaction_counts` for counts, at most once per comment per second). ' +
  'Only what the public may see is sent; pending comments never are. Messages carry `id`, the thread\'s event number: ' +
  'reconnecting with `Last-Event-ID` (or `last_event_id`) replays what was missed, on any instance; a gap too old to replay, ' +
  'or a shadow ban (or its lifting) changing all of an author\'s comments, sends `reset` (reload the thread). A comment line every 15 s keeps the connection open. Streams per client address and ' +
  'per instance are capped (429 with Retry-After); 403 when the site has turned live updates off.';

export const liveRoutes: FastifyPluginAsyncTypebox<{ db: Db; hub: LiveHub }> = async (app, { db, hub }) => {
  app.get('/v1/comments/stream', {
    exposeHeadRoute: false,
    schema: {
      tags: ['comments'],
      summary: "A thread's changes as they happen (Server-Sent Events)",
      description: DESCRIPTION,
      security: OptionalCredential,
      querystring: Type.Object({
        site_id: Type.String({ maxLength: 100 }),
        thread_url: Type.String({ maxLength: 2048 }),
        last_event_id: Type.Optional(Type.String({ pattern: SEQ, description: 'Resume after this event (for clients that cannot send Last-Event-ID)' })),
      }),
      headers: Type.Object({ 'last-event-id': Type.Optional(Type.String({ pattern: SEQ, description: 'Resume after this event' })) }),
      response: {
        200: { description: 'The stream', content: { 'text/event-stream': { schema: Type.String() } } },
        ...errors,
      },
    },
    handler: async (request, reply) => {
      const site = await siteOrNotFound(db.kysely, request.query.site_id);
      if (!site.liveUpdates) throw new AppError('forbidden', 'This site has turned live updates off');
      const url = threadKey(request.query.thread_url, 'querystring/thread_url');
      const resumeFrom = request.headers['last-event-id'] ?? request.query.last_event_id;
      let reader;
      try {
        reader = await hub.open(request.ip, site.id, url.href, resumeFrom === undefined ? null : Number(resumeFrom));
      } catch (error) {
        if (error instanceof AppError && error.code === 'rate_limited') reply.header('retry-after', RETRY_AFTER_SECONDS);
        throw error;
      }
      reply.raw.on('close', () => reader.close());
      return reply
        .header('cache-control', 'no-cache, no-transform')
        .header('x-accel-buffering', 'no')
        .header('connection', 'close')
        .type('text/event-stream; charset=utf-8')
        .send(reader.out);
    },
  });
};
