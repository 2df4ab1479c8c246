import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { preparedQuery } from '../db/prepared.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import { findThread, insertedFirst, listable } from './repository.ts';
import type { CommentRow } from './view.ts';
import { PUBLIC_VIEWER, type Viewer } from './visibility.ts';
import { nowIso } from '../clock.ts';

const MODERATOR_VIEWER: Viewer = { ref: null, moderator: true };
const CHUNK = 500;

/** Whether a new top-level comment is in the public's list (a fresh one has no replies to weigh). */
export function listedPublicly(row: { status: string; moderation_status: string | null }): 0 | 1 {
  return row.status === 'published' && row.moderation_status === null ? 1 : 0;
}

/**
 * Brings the stored listing of these top-level comments (`listed_public`, `listed_all`) and their
 * threads' totals up to date after a change below them: one query per 500 roots, plus an update
 * for each root whose listing changed. Call it inside the transaction of the change.
 */
export async function refreshListing(trx: Kysely<Database>, rootIds: Iterable<string>): Promise<void> {
  const ids = [...new Set(rootIds)];
  const deltas = new Map<string, { public: number; all: number }>();
  for (let start = 0; start < ids.length; start += CHUNK) {
    const chunk = ids.slice(start, start + CHUNK);
    const rows = await listingsOf(trx, chunk.length, ...chunk);
    for (const row of rows) {
      const publicNow = Number(row.public_now) as 0 | 1;
      const allNow = Number(row.all_now) as 0 | 1;
      if (publicNow === Number(row.listed_public) && allNow === Number(row.listed_all)) continue;
      await trx.updateTable('comments').set({ listed_public: publicNow, listed_all: allNow }).where('id', '=', row.id).execute();
      const delta = deltas.get(row.thread_id) ?? { public: 0, all: 0 };
      delta.public += publicNow - Number(row.listed_public);
      delta.all += allNow - Number(row.listed_all);
      deltas.set(row.thread_id, delta);
    }
  }
  for (const [threadId, delta] of deltas) await addToTotals(trx, threadId, delta.public, delta.all);
}

const listingsOf = preparedQuery((db, _count: number, ...rootIds: string[]) =>
  sql<{ id: string; thread_id: string; listed_public: number; listed_all: number; public_now: number; all_now: number }>`
    select c.id, c.thread_id, c.listed_public, c.listed_all,
      case when ${listable(PUBLIC_VIEWER)} then 1 else 0 end as public_now,
      case when ${listable(MODERATOR_VIEWER)} then 1 else 0 end as all_now
    from comments c where c.id in (${sql.join(rootIds)}) and c.parent_id is null`.compile(db),
);

export async function addToTotals(trx: Kysely<Database>, threadId: string, publicDelta: number, allDelta: number): Promise<void> {
  if (publicDelta === 0 && allDelta === 0) return;
  await trx.updateTable('threads').set(totalsPlus(publicDelta, allDelta)).where('id', '=', threadId).execute();
}

/** A new top-level comment counted into its thread's totals; answers whether the thread is closed. */
const countedInThread = (db: Kysely<Database>, listedPublic: 0 | 1, threadId: string) =>
  db.updateTable('threads').set(totalsPlus(listedPublic, 1)).where('id', '=', threadId).returning('closed_at');

const countInThread = preparedQuery((db, _shape: null, listedPublic: 0 | 1, threadId: string) => countedInThread(db, listedPublic, threadId).compile());

/** A closed thread (src/threads) takes no new comments or replies. */
export function threadClosed(): AppError {
  return new AppError('conflict', 'The thread is closed to new comments');
}

/**
 * The thread a new top-level comment goes into (`found`, read with its author's standing: see
 * standingOf), created with its first comment; 409 when it is closed. Read without a lock: the
 * thread's row is locked only by the comment's insert and its count (insertCountedTopLevel), at the
 * end of the transaction, so concurrent comments of one thread wait for each other the least.
 */
export async function threadForNewComment(trx: Kysely<Database>, siteId: string, urlKey: string, found: { id: string; closed_at: string | null } | undefined): Promise<string> {
  if (found?.closed_at) throw threadClosed();
  if (found) return found.id;
  const id = newId('thr');
  const created = await trx
    .insertInto('threads')
    .values({ id, site_id: siteId, url_key: urlKey, created_at: nowIso(), public_total: 0, all_total: 0 })
    .onConflict((oc) => oc.columns(['site_id', 'url_key']).doNothing())
    .executeTakeFirst();
  if (Number(created.numInsertedOrUpdatedRows ?? 0) === 1) return id;
  // Another transaction created the thread meanwhile.
  return (await findThread(trx, siteId, urlKey))!.id;
}

/**
 * Inserts a new top-level comment and adds it to its thread's totals, under the thread's row lock
 * (in one statement on PostgreSQL: see insertedFirst), and checks again that the thread is open (it
 * may have closed since threadForNewComment: the transaction is then rolled back).
 */
export async function insertCountedTopLevel(trx: Kysely<Database>, row: CommentRow, listedPublic: 0 | 1): Promise<void> {
  const inserted = await insertedFirst(trx, { row, job: null, event: null });
  const [thread] = inserted
    ? (await sql<{ closed_at: string | null }>`with ${inserted} counted as (${countedInThread(trx, listedPublic, row.thread_id)}) select closed_at from counted`.execute(trx)).rows
    : await countInThread(trx, null, listedPublic, row.thread_id);
  if (thread.closed_at) throw threadClosed();
}

export function totalsPlus(publicDelta: number, allDelta: number) {
  return (eb: ExpressionBuilder<Database, 'threads'>) => ({
    public_total: eb('public_total', '+', publicDelta),
    all_total: eb('all_total', '+', allDelta),
  });
}
