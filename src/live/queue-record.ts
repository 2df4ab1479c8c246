import type { Transaction } from 'kysely';
import { encodeTime } from 'ulid';
import { preparedInsert } from '../db/prepared.ts';
import type { Database } from '../db/schema.ts';

/**
 * The moderation queue's changes, as staff streams send them: each names the comment, its site, what
 * happened (the outbox event's type, and for moderation.action the action) and the status it has now.
 */
export const QUEUE_EVENT_TYPES = ['comment.created', 'comment.updated', 'comment.flagged', 'moderation.action', 'comment.deleted'] as const;

/** Queue changes are kept this long for staff streams that reconnect; an older Last-Event-ID gets `reset`. */
export const QUEUE_KEPT_MS = 24 * 60 * 60 * 1000;
/** About one write in this many prunes what is past QUEUE_KEPT_MS: one range delete along the primary key. */
const PRUNE_ONE_IN = 100;

interface EventComment {
  id: string;
  status: string;
}

/** What this reads of a domain event (events/record.ts's DomainEvent, which calls in here). */
interface QueueEventSource {
  siteId: string | null;
  type: string;
  data: Record<string, unknown>;
}

/** Compiled once (see db/prepared.ts): every held comment writes one. */
const insertQueueEvent = preparedInsert('queue_events');

/**
 * Keeps a domain event for the staff streams when it changes the moderation queue: a comment
 * arriving (or edited) into a state that is not published, flagged, moderated (flags dismissed
 * included), or deleted. A published comment's arrival or edit is no queue change and writes nothing,
 * so the public write paths pay only this check. Called by recordEvent, in the change's transaction.
 */
export async function recordQueueChange(trx: Transaction<Database>, eventId: string, event: QueueEventSource, createdAt: string): Promise<void> {
  if (event.siteId === null || !changesQueue(event)) return;
  const comment = event.data.comment as EventComment;
  const action = event.type === 'moderation.action' ? (event.data.action as string) : null;
  await insertQueueEvent(trx, { id: eventId, site_id: event.siteId, comment_id: comment.id, type: event.type, action, status: comment.status, created_at: createdAt });
  if (Math.random() * PRUNE_ONE_IN < 1) await trx.deleteFrom('queue_events').where('id', '<', eventIdAt(Date.now() - QUEUE_KEPT_MS)).execute();
}

/** Whether the event changes the moderation queue (recordQueueChange keeps it then). */
export function changesQueue(event: QueueEventSource): boolean {
  if (event.siteId === null || !(QUEUE_EVENT_TYPES as readonly string[]).includes(event.type)) return false;
  const comment = event.data.comment as EventComment;
  return !((event.type === 'comment.created' || event.type === 'comment.updated') && comment.status === 'published');
}

/** The smallest outbox event id of this instant: event ids are `evt_` and a lower-case ULID, whose first ten characters are the time. */
export function eventIdAt(ms: number): string {
  return `evt_${encodeTime(Math.max(0, ms), 10).toLowerCase()}`;
}
