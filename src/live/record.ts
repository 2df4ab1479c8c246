import { PostgresAdapter, sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { insertedFirst, isVisible, type NewComment } from '../comments/repository.ts';
import type { CommentRow } from '../comments/view.ts';
import { PUBLIC_VIEWER } from '../comments/visibility.ts';
import { millisecondAfter, type DialectName } from '../db/dialect.ts';
import { preparedInsert, preparedQuery } from '../db/prepared.ts';
import type { Database, LiveEventTable } from '../db/schema.ts';
import { nowIso } from '../clock.ts';

/**
 * What a live stream tells readers. Each names what the public may see of the change (all but
 * `comment.counts` numbered in the thread's sequence):
 * - `comment.created`: a comment became visible to the public (posted and published, approved,
 *   unhidden), with the comment;
 * - `comment.updated` / `comment.deleted`: a visible comment was edited / deleted, with the comment;
 * - `comment.hidden`: a visible comment left the public's view (removed, spam, held again, shadow-banned);
 * - `comment.counts`: its votes or reactions changed (the counts are read when sent).
 * An event keeps only the comment's id: the comment is read when the event is sent, as the public
 * sees it then (feed.ts), so a stream resumed from an old event shows no text since removed,
 * replaced or deleted, nor a name since erased.
 */
export const LIVE_EVENT_TYPES = ['comment.created', 'comment.updated', 'comment.deleted', 'comment.hidden', 'comment.counts'] as const;
export type LiveEventType = (typeof LIVE_EVENT_TYPES)[number];

/** Events kept per thread for readers who reconnect; a longer gap is answered with `reset`. */
export const KEPT_EVENTS = 1000;
/** Older events are pruned once every this many, so pruning costs one statement per hundred changes. */
const PRUNE_EVERY = 100;

/**
 * Numbers one change of a thread and keeps it, in the transaction of the change: the thread row's
 * counter is the sequence, and the update locks that row until commit, so concurrent changes of one
 * thread take consecutive numbers in commit order.
 */
export async function recordLiveEvent(
  trx: Kysely<Database>,
  threadId: string,
  type: LiveEventType | 'reset',
  commentId: string,
): Promise<void> {
  await recordNumbered(trx, threadId, { type, comment_id: commentId, created_at: nowIso() }, NO_TOTALS, null);
}

/** What a change adds to its thread's top-level totals (threads.public_total, all_total). */
interface Totals {
  public: number;
  all: number;
}
const NO_TOTALS: Totals = { public: 0, all: 0 };

/**
 * Numbers and keeps an event, adding `totals` to the thread's in the same update, after inserting
 * `inserting` (a new comment: see insertedFirst); says whether the thread is closed.
 */
async function recordNumbered(trx: Kysely<Database>, threadId: string, values: LiveEventValues, totals: Totals, inserting: NewComment | null): Promise<{ closed: boolean }> {
  const { seq, closedAt } = await numberAndKeep(trx, threadId, values, totals, inserting);
  if (seq % PRUNE_EVERY === 0) {
    await trx.deleteFrom('live_events').where('thread_id', '=', threadId).where('seq', '<=', seq - KEPT_EVENTS).execute();
  }
  return { closed: closedAt !== null };
}

type LiveEventValues = Pick<LiveEventTable, 'type' | 'comment_id' | 'created_at'>;

/**
 * The thread's next number, and the event kept under it. On PostgreSQL one statement (the update in
 * a CTE), as every write records one and each statement is a round trip; SQLite cannot write in a
 * CTE, and a statement there costs no round trip.
 */
async function numberAndKeep(trx: Kysely<Database>, threadId: string, values: LiveEventValues, totals: Totals, inserting: NewComment | null): Promise<{ seq: number; closedAt: string | null }> {
  const inserted = inserting && (await insertedFirst(trx, inserting));
  if (trx.getExecutor().adapter instanceof PostgresAdapter) {
    const { rows } = await sql<{ seq: number | string; closed_at: string | null }>`
      with ${inserted ?? sql``} numbered as (
        update threads set live_seq = live_seq + 1, public_total = public_total + ${totals.public}, all_total = all_total + ${totals.all}
        where id = ${threadId} returning live_seq, closed_at)
      insert into live_events (thread_id, seq, type, comment_id, created_at)
      select ${threadId}, live_seq, ${values.type}, ${values.comment_id}, ${values.created_at} from numbered
      returning seq, (select closed_at from numbered)`.execute(trx);
    if (rows.length === 0) throw new Error(`no thread ${threadId}`);
    return { seq: Number(rows[0].seq), closedAt: rows[0].closed_at };
  }
  const [thread] = await numberInThread(trx, null, threadId, totals.public, totals.all);
  if (!thread) throw new Error(`no thread ${threadId}`);
  const seq = Number(thread.live_seq);
  await insertLiveEvent(trx, { thread_id: threadId, seq, ...values });
  return { seq, closedAt: thread.closed_at };
}

// SQLite's two statements of numberAndKeep, compiled once (see db/prepared.ts): every comment runs them.
const numberInThread = preparedQuery((db, _shape: null, threadId: string, publicDelta: number, allDelta: number) =>
  db
    .updateTable('threads')
    .set((eb) => ({ live_seq: eb('live_seq', '+', 1), public_total: eb('public_total', '+', publicDelta), all_total: eb('all_total', '+', allDelta) }))
    .where('id', '=', threadId)
    .returning(['live_seq', 'closed_at'])
    .compile(),
);
const insertLiveEvent = preparedInsert('live_events');

/**
 * A new top-level comment the public sees: it is inserted with its fan-out job, its thread's totals
 * are counted and its comment.created numbered in one statement on PostgreSQL (see insertedFirst),
 * the last before COMMIT, as that statement locks the thread's row. Says whether the thread is closed
 * (it may have closed since the comment's transaction found it).
 */
export async function insertNewTopLevel(trx: Kysely<Database>, comment: NewComment): Promise<{ closed: boolean }> {
  const values = { type: 'comment.created', comment_id: comment.row.id, created_at: nowIso() };
  return recordNumbered(trx, comment.row.thread_id, values, { public: 1, all: 1 }, comment);
}

/**
 * An author's comments change all at once (a shadow ban, or its lifting): rather than an event per
 * comment, each thread where the public sees a change gets a `reset`, and its readers reload it.
 * Call it before the change: `hiding` picks the comments the public sees now (a ban is coming), or
 * those it will see (the ban is being lifted).
 */
export async function recordAuthorReset(trx: Kysely<Database>, siteId: string, authorRef: string, hiding: boolean): Promise<void> {
  const threads = await trx
    .selectFrom('comments')
    .select('thread_id')
    .distinct()
    .where('site_id', '=', siteId)
    .where('author_ref', '=', authorRef)
    .where('status', '=', 'published')
    .where('moderation_status', hiding ? 'is' : '=', hiding ? null : 'shadow_banned')
    .execute();
  for (const { thread_id: threadId } of threads) await recordLiveEvent(trx, threadId, 'reset', '');
}

/** Whether the public sees the comment: the row itself, and (for a reply) every ancestor. */
export async function seenByPublic(trx: Kysely<Database>, row: Pick<CommentRow, 'id' | 'status' | 'moderation_status' | 'parent_id'>): Promise<boolean> {
  if (row.status !== 'published' || row.moderation_status !== null) return false;
  return row.parent_id === null || isVisible(trx, PUBLIC_VIEWER, row.id);
}

/**
 * Records what the public saw change when a comment changed: `before` is whether the public saw it
 * before the change (read in the same transaction). Nothing when the public sees it neither before
 * nor after (a pending comment, one of a shadow-banned author): readers never learn of those.
 * Answers whether the public sees the comment now.
 */
export async function recordCommentChange(trx: Transaction<Database>, before: boolean, row: CommentRow): Promise<boolean> {
  const after = await seenByPublic(trx, row);
  if (!before && !after) return after;
  const type = !after ? 'comment.hidden' : !before ? 'comment.created' : row.is_deleted ? 'comment.deleted' : 'comment.updated';
  await recordLiveEvent(trx, row.thread_id, type, row.id);
  return after;
}

/**
 * A comment the public sees again (approved, unhidden) brings back the replies that waited under it,
 * which readers' pages never had: when it has any, its thread gets a `reset` after its
 * `comment.created`, and readers reload the thread. (A new comment has no replies: not called for those.)
 */
export async function recordRepliesShown(trx: Transaction<Database>, row: Pick<CommentRow, 'id' | 'thread_id'>): Promise<void> {
  const reply = await trx
    .selectFrom('comments')
    .select('id')
    .where('parent_id', '=', row.id)
    .where('status', '=', 'published')
    .where('moderation_status', 'is', null)
    .limit(1)
    .executeTakeFirst();
  if (reply) await recordLiveEvent(trx, row.thread_id, 'reset', '');
}

/**
 * Votes and reactions take no number in the thread's sequence: numbering locks the thread's row
 * until commit, which made a thread's votes commit one at a time. Instead the statement that moves
 * a comment's counts, when the public sees the comment, stamps `counts_changed_at` with this: now,
 * or one millisecond after the comment's last stamp if that is not earlier (another instance's
 * clock, or a change in the same millisecond), decided on the row as the statement finds it, so no
 * two changes share one. Streams look for comments stamped since they last looked (feed.ts); the
 * counts themselves are read when sent, so bursts coalesce.
 */
export function countsChangeStamp(dialect: DialectName, now: unknown): RawBuilder<string> {
  const last = sql.ref('counts_changed_at');
  return sql<string>`case when ${last} is null or ${last} < ${now} then ${now} else ${millisecondAfter(dialect, last)} end`;
}
