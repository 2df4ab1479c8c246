import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { threadKey } from '../comments/thread-url.ts';
import type { Db } from '../db/connect.ts';
import { AppError } from '../errors.ts';
import type { FastifyReply } from 'fastify';
import { errors, ManagementRead, OptionalCredential } from '../http/schemas.ts';
import { managedSite, siteOrNotFound, sitesManagedBy } from '../sites/repository.ts';
import type { LiveHub } from './hub.ts';
import { queueAccessOf } from './queue-access.ts';
import { QUEUE_GRACE_MS } from './queue-feed.ts';
import { QUEUE_EVENT_TYPES } from './queue-record.ts';
import type { Reader } from './reader.ts';
import { LIVE_EVENT_TYPES } from './record.ts';
import { sessionOfStreamKey, STREAM_KEY_PATTERN } from './stream-key.ts';

const SEQ = '^[0-9]{1,15}$';
/** An outbox event id (or a `ready` position): `evt_` and a ULID. */
const EVENT_ID = '^evt_[0-9a-z]{26}$';
/** How soon a refused client (too many streams) may try again, in seconds. */
const RETRY_AFTER_SECONDS = 30;

const DESCRIPTION =
  'Server-Sent Events (text/event-stream). Each message has `data`: JSON with `type` — ' +
  `${LIVE_EVENT_TYPES.map((t) => `\`${t}\``).join(', ')}, \`ready\` or \`reset\` — and \`comment\` (the comment as the public sees it) ` +
  'or `comment_id` (with `upvotes`, `downvotes` and `reaction_counts` for counts, at most once per comment per second, without `id`; ' +
  'a resume sends the current counts of the comments voted on since Last-Event-ID). ' +
  'Only what the public may see is sent; pending comments never are. Messages carry `id`, the thread\'s event number: ' +
  'reconnecting with `Last-Event-ID` (or `last_event_id`) replays what was missed, on any instance; a gap too old to replay, ' +
  'a shadow ban (or its lifting) changing all of an author\'s comments, or an approval bringing back replies that waited under the comment, sends `reset` (reload the thread). A comment line every 15 s keeps the connection open. Streams per client address (an IPv6 client counts as its /64) and ' +
  'per instance are capped (429 with Retry-After); 403 when the site has turned live updates off. ' +
  'With `notifications_key` (a signed-in reader\'s `notifications.stream_key` from GET /v1/widget) the stream also carries their bell: ' +
  '`{"type":"notifications","unread":n}` (without `id`) once it is ready and whenever their unread count changes, whichever instance notified them. ' +
  'A key that is wrong, of another site, or of a session that has ended is 401 before anything is streamed, and a stream whose session ends ' +
  '(signed out, revoked, expired) is closed within a heartbeat: reconnect without the key.';

const QUEUE_DESCRIPTION =
  'Server-Sent Events (text/event-stream) of the moderation queue of one site, or of every site the caller moderates. ' +
  'Each message has `data`: JSON with `type` — the change: ' +
  `${QUEUE_EVENT_TYPES.map((t) => `\`${t}\``).join(', ')} — ` +
  'with `comment_id`, `site_id`, `status` (the comment\'s status now, which staff may see: pending, published, removed, spam) and, for `moderation.action`, ' +
  '`action` (approve, remove, spam, shadow_ban, unhide, dismiss_flags, pin, unpin, undo); or `ready` / `reset`. Sent: a comment held on arrival (or by an edit), ' +
  'flagged, moderated, deleted; never a published comment arriving, nor votes. Messages carry `id`, the change\'s event id (`ready` a position): ' +
  `reconnecting with \`Last-Event-ID\` (or \`last_event_id\`) replays the changes since then, on any instance, and those of the ${QUEUE_GRACE_MS / 1000} s before it ` +
  '(an event is numbered before its change commits; each message states the comment\'s status, so one received twice changes nothing); ' +
  'more than 1,000 changes, or an id older than a day, send `reset` (reload the queue). The sites are those the caller moderates when the stream opens; ' +
  'the stream ends within a heartbeat once the caller no longer moderates one of them (removed, sites changed, key revoked, signed out). ' +
  'A comment line every 15 s keeps the connection open; the same per-address and per-instance caps as the public stream apply (429 with Retry-After).';

/** Opens a stream (429 with Retry-After past the caps) and answers with it. */
async function streamed(reply: FastifyReply, open: () => Promise<Reader>): Promise<FastifyReply> {
  let reader: Reader;
  try {
    reader = await open();
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
}

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
        notifications_key: Type.Optional(Type.String({ pattern: STREAM_KEY_PATTERN, description: "The signed-in reader's `notifications.stream_key` (GET /v1/widget): the stream carries their unread count" })),
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
      const key = request.query.notifications_key;
      const bell = key === undefined ? null : await sessionOfStreamKey(db.kysely, site.id, key);
      if (bell === null && key !== undefined) throw new AppError('unauthorized', 'The notifications key is wrong, or its session has ended: sign in again, or stream without it');
      const resumeFrom = request.headers['last-event-id'] ?? request.query.last_event_id;
      return streamed(reply, () => hub.open(request.ip, site.id, url.href, resumeFrom === undefined ? null : Number(resumeFrom), bell));
    },
  });

  app.get('/api/comments/stream', {
    exposeHeadRoute: false,
    schema: {
      tags: ['moderation'],
      summary: 'The moderation queue\'s changes as they happen (Server-Sent Events), for staff',
      description: QUEUE_DESCRIPTION,
      security: ManagementRead,
      querystring: Type.Object({
        site_id: Type.Optional(Type.String({ maxLength: 100, description: 'One site; without it, every site the caller moderates' })),
        last_event_id: Type.Optional(Type.String({ pattern: EVENT_ID, description: 'Resume after this event (for clients that cannot send Last-Event-ID)' })),
      }),
      headers: Type.Object({ 'last-event-id': Type.Optional(Type.String({ pattern: EVENT_ID, description: 'Resume after this event' })) }),
      response: {
        200: { description: 'The stream', content: { 'text/event-stream': { schema: Type.String() } } },
        ...errors,
      },
    },
    handler: async (request, reply) => {
      const { site_id: siteId } = request.query;
      const sites = siteId !== undefined ? [await managedSite(db.kysely, request.caller, siteId, 'moderate')] : await sitesManagedBy(db.kysely, request.caller, 'moderate');
      const resumeFrom = request.headers['last-event-id'] ?? request.query.last_event_id ?? null;
      return streamed(reply, () => hub.openQueue(request.ip, sites.map((site) => site.id), resumeFrom, queueAccessOf(db.kysely, request.caller, sites)));
    },
  });
};
