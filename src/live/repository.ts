import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';

/** A thread's place in its sequence: the latest event's number, and the oldest one still kept. */
export interface ThreadPosition {
  threadId: string;
  seq: number;
  oldestKept: number | null;
}

export async function threadPosition(db: Kysely<Database>, siteId: string, urlKey: string): Promise<ThreadPosition | null> {
  const row = await db
    .selectFrom('threads as t')
    .select(['t.id', 't.live_seq'])
    .select((eb) => eb.selectFrom('live_events as e').select((e) => e.fn.min('e.seq').as('oldest')).whereRef('e.thread_id', '=', 't.id').as('oldest'))
    .where('t.site_id', '=', siteId)
    .where('t.url_key', '=', urlKey)
    .executeTakeFirst();
  return row ? { threadId: row.id, seq: Number(row.live_seq), oldestKept: row.oldest === null ? null : Number(row.oldest) } : null;
}

/** The latest number of each of these threads, in one statement (a stream's check for missed announcements). */
export async function threadSeqs(db: Kysely<Database>, threadIds: string[]): Promise<Map<string, number>> {
  if (threadIds.length === 0) return new Map();
  const rows = await db.selectFrom('threads').select(['id', 'live_seq']).where('id', 'in', threadIds).execute();
  return new Map(rows.map((row) => [row.id, Number(row.live_seq)]));
}

/** The counts a `comment.counts` event shows, read when it is sent; null fields when the public no longer sees the comment. */
export interface Counts {
  upvotes: number;
  downvotes: number;
  reaction_counts: Record<string, number>;
}

export interface StoredEvent {
  seq: number;
  type: string;
  comment_id: string;
}

/** Events of a thread after `after`, oldest first, at most `limit`. */
export async function eventsAfter(db: Kysely<Database>, threadId: string, after: number, limit: number): Promise<StoredEvent[]> {
  const rows = await db
    .selectFrom('live_events')
    .select(['seq', 'type', 'comment_id'])
    .where('thread_id', '=', threadId)
    .where('seq', '>', after)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ ...row, seq: Number(row.seq) }));
}

/** Current counts of the comments the public still sees (a hidden comment's counts are nobody's business). */
export async function publicCounts(db: Kysely<Database>, ids: string[]): Promise<Map<string, Counts>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('comments as c')
    .innerJoin('comment_counts as n', 'n.comment_id', 'c.id')
    .select(['c.id', 'n.upvotes', 'n.downvotes', 'n.reaction_counts'])
    .where('c.id', 'in', ids)
    .where('c.status', '=', 'published')
    .where('c.moderation_status', 'is', null)
    .where('c.is_deleted', '=', 0)
    .execute();
  return new Map(rows.map((row) => [row.id, { upvotes: Number(row.upvotes), downvotes: Number(row.downvotes), reaction_counts: JSON.parse(row.reaction_counts) }]));
}

export interface QueueEventRow {
  id: string;
  site_id: string;
  comment_id: string;
  type: string;
  action: string | null;
  status: string;
}

/** Moderation queue changes of these sites after the id `after`, oldest first, at most `limit` (the (site_id, id) index, per site). */
export async function queueEventsAfter(db: Kysely<Database>, siteIds: string[], after: string, limit: number): Promise<QueueEventRow[]> {
  return db
    .selectFrom('queue_events')
    .select(['id', 'site_id', 'comment_id', 'type', 'action', 'status'])
    .where('site_id', 'in', siteIds)
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute();
}

export interface CountsChange {
  id: string;
  counts_changed_at: string;
}

/** Comments of a thread whose counts changed at or after `since` (ISO), along the partial index comment_counts_changed (migration 0041). */
export async function countsChangedSince(db: Kysely<Database>, threadId: string, since: string): Promise<CountsChange[]> {
  const rows = await db
    .selectFrom('comment_counts')
    .select(['comment_id as id', 'counts_changed_at'])
    .where('thread_id', '=', threadId)
    .where('counts_changed_at', '>=', since)
    .execute();
  return rows as CountsChange[];
}

/** Which of these threads have counts changed at or after `since`, in one statement (the heartbeat's check). */
export async function threadsWithCountsSince(db: Kysely<Database>, threadIds: string[], since: string): Promise<Set<string>> {
  if (threadIds.length === 0) return new Set();
  const rows = await db.selectFrom('comment_counts').select('thread_id').distinct().where('thread_id', 'in', threadIds).where('counts_changed_at', '>=', since).execute();
  return new Set(rows.map((row) => row.thread_id));
}

/** When the thread's event `seq` (or the latest before it that is kept) was recorded; null when none is. */
export async function eventTime(db: Kysely<Database>, threadId: string, seq: number): Promise<string | null> {
  const row = await db
    .selectFrom('live_events')
    .select('created_at')
    .where('thread_id', '=', threadId)
    .where('seq', '<=', seq)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.created_at ?? null;
}
