import { PostgresAdapter, sql, type Kysely, type Transaction } from 'kysely';
import { isVisible } from '../comments/repository.ts';
import { toView, type CommentRow } from '../comments/view.ts';
import { PUBLIC_VIEWER } from '../comments/visibility.ts';
import type { Database, LiveEventTable } from '../db/schema.ts';
import { nowIso } from '../clock.ts';

/**
 * What a live stream tells readers. Each names what the public may see of the change:
 * - `comment.created`: a comment became visible to the public (posted and published, approved,
 *   unhidden), with the comment;
 * - `comment.updated` / `comment.deleted`: a visible comment was edited / deleted, with the comment;
 * - `comment.hidden`: a visible comment left the public's view (removed, spam, held again, shadow-banned);
 * - `comment.counts`: its votes or reactions changed (the counts are read when sent).
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
  data: object | null,
): Promise<void> {
  const values = { type, comment_id: commentId, data: data && JSON.stringify(data), created_at: nowIso() };
  const seq = await numberAndKeep(trx, threadId, values);
  if (Number(seq) % PRUNE_EVERY === 0) {
    await trx.deleteFrom('live_events').where('thread_id', '=', threadId).where('seq', '<=', Number(seq) - KEPT_EVENTS).execute();
  }
}

type LiveEventValues = Pick<LiveEventTable, 'type' | 'comment_id' | 'data' | 'created_at'>;

/**
 * The thread's next number, and the event kept under it. On PostgreSQL one statement (the update in
 * a CTE), as every write records one and each statement is a round trip; SQLite cannot write in a
 * CTE, and a statement there costs no round trip.
 */
async function numberAndKeep(trx: Kysely<Database>, threadId: string, values: LiveEventValues): Promise<number> {
  if (trx.getExecutor().adapter instanceof PostgresAdapter) {
    const { rows } = await sql<{ seq: number | string }>`
      with numbered as (update threads set live_seq = live_seq + 1 where id = ${threadId} returning live_seq)
      insert into live_events (thread_id, seq, type, comment_id, data, created_at)
      select ${threadId}, live_seq, ${values.type}, ${values.comment_id}, ${values.data}, ${values.created_at} from numbered
      returning seq`.execute(trx);
    if (rows.length === 0) throw new Error(`no thread ${threadId}`);
    return Number(rows[0].seq);
  }
  const { live_seq: seq } = await trx
    .updateTable('threads')
    .set((eb) => ({ live_seq: eb('live_seq', '+', 1) }))
    .where('id', '=', threadId)
    .returning('live_seq')
    .executeTakeFirstOrThrow();
  await trx.insertInto('live_events').values({ thread_id: threadId, seq: Number(seq), ...values }).execute();
  return Number(seq);
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
  for (const { thread_id: threadId } of threads) await recordLiveEvent(trx, threadId, 'reset', '', null);
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
export async function recordCommentChange(trx: Transaction<Database>, before: boolean, row: CommentRow, threadUrl: string): Promise<boolean> {
  const after = await seenByPublic(trx, row);
  if (!before && !after) return after;
  if (!after) await recordLiveEvent(trx, row.thread_id, 'comment.hidden', row.id, null);
  else await recordLiveEvent(trx, row.thread_id, !before ? 'comment.created' : row.is_deleted ? 'comment.deleted' : 'comment.updated', row.id, toView(row, threadUrl));
  return after;
}

/** Votes and reactions: the counts themselves are read when the event is sent, so bursts coalesce. */
export async function recordCountsChange(trx: Transaction<Database>, threadId: string, row: Pick<CommentRow, 'id' | 'status' | 'moderation_status' | 'parent_id'>): Promise<void> {
  if (await seenByPublic(trx, row)) await recordLiveEvent(trx, threadId, 'comment.counts', row.id, null);
}
