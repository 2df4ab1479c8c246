import type { Kysely, Selectable } from 'kysely';
import { audited, type Actor } from '../audit/audit.ts';
import { nowIso } from '../clock.ts';
import { cleanText } from '../comments/text.ts';
import { threadKey } from '../comments/thread-url.ts';
import { toCount } from '../db/dialect.ts';
import type { Database, ThreadTable } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { afterKey, decodeCursor, pageOf } from '../http/cursor.ts';
import type { Site } from '../sites/repository.ts';
import { MAX_TITLE } from './schemas.ts';

const ORDER = 'threads:newest';

type ThreadRow = Pick<Selectable<ThreadTable>, 'id' | 'url_key' | 'title' | 'closed_at' | 'created_at'>;
const THREAD_COLUMNS = ['id', 'url_key', 'title', 'closed_at', 'created_at'] as const;

const EMPTY = { published: 0, pending: 0, removed: 0, spam: 0, deleted: 0 };

/**
 * Each thread's comments by status and its newest comment's time, from the (thread_id, created_at,
 * id, status, is_deleted) index alone: the cost grows with the threads' sizes (a 100,000-comment
 * thread reads 100,000 index entries), which a page of a site's threads seldom reaches.
 */
async function activityOf(db: Kysely<Database>, threadIds: string[]) {
  const byThread = new Map<string, { comments: typeof EMPTY; last: string | null }>();
  if (threadIds.length === 0) return byThread;
  const rows = await db
    .selectFrom('comments')
    .select((eb) => ['thread_id', 'status', 'is_deleted', eb.fn.countAll<number>().as('n'), eb.fn.max('created_at').as('last')])
    .where('thread_id', 'in', threadIds)
    .groupBy(['thread_id', 'status', 'is_deleted'])
    .execute();
  for (const row of rows) {
    const entry = byThread.get(row.thread_id) ?? { comments: { ...EMPTY }, last: null };
    const bucket = Number(row.is_deleted) === 1 ? 'deleted' : (row.status as keyof typeof EMPTY);
    entry.comments[bucket] += toCount(row.n);
    if (entry.last === null || row.last > entry.last) entry.last = row.last;
    byThread.set(row.thread_id, entry);
  }
  return byThread;
}

async function threadViews(db: Kysely<Database>, rows: ThreadRow[]) {
  const activity = await activityOf(db, rows.map((row) => row.id));
  return rows.map((row) => ({
    id: row.id,
    url: row.url_key,
    title: row.title,
    closed: row.closed_at !== null,
    closed_at: row.closed_at,
    created_at: row.created_at,
    last_activity_at: activity.get(row.id)?.last ?? null,
    comments: activity.get(row.id)?.comments ?? { ...EMPTY },
  }));
}

export interface ThreadFilter {
  cursor?: string;
  limit?: number;
  url?: string;
  closed?: boolean;
}

/** A site's threads, newest first, with their comments by status and last activity. */
export async function listThreads(db: Kysely<Database>, site: Site, filter: ThreadFilter) {
  const limit = filter.limit ?? 20;
  let query = db.selectFrom('threads').select(THREAD_COLUMNS).where('site_id', '=', site.id);
  if (filter.url !== undefined) query = query.where('url_key', '=', threadKey(filter.url, 'querystring/url').href);
  if (filter.closed !== undefined) query = query.where('closed_at', filter.closed ? 'is not' : 'is', null);
  if (filter.cursor !== undefined) query = query.where(afterKey(['created_at', 'id'], decodeCursor(filter.cursor, ORDER, ['string', 'string']), 'desc'));
  const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
  const { items, next_cursor } = pageOf(rows, limit, (row) => [row.created_at, row.id], ORDER);
  return { threads: await threadViews(db, items), next_cursor };
}

/** Closes or reopens a thread, or sets its title. */
export async function updateThread(db: Kysely<Database>, site: Site, threadId: string, patch: { closed?: boolean; title?: string | null }, actor: Actor) {
  const thread = await db.selectFrom('threads').select(THREAD_COLUMNS).where('id', '=', threadId).where('site_id', '=', site.id).executeTakeFirst();
  if (!thread) throw new AppError('not_found', `No thread ${threadId} on this site`);
  const title = patch.title === undefined ? thread.title : patch.title === null ? null : cleanText('body/title', patch.title, MAX_TITLE);
  // Closing a closed thread keeps when it was closed.
  const closedAt = patch.closed === undefined ? thread.closed_at : patch.closed ? (thread.closed_at ?? nowIso()) : null;
  const action = patch.closed === undefined ? 'thread.updated' : patch.closed ? 'thread.closed' : 'thread.reopened';
  const entry = { accountId: site.accountId, actor, action, target: threadId, data: { site_id: site.id, url: thread.url_key, ...(patch.title !== undefined && { title }) } };
  await audited(db, entry, (trx) => trx.updateTable('threads').set({ title, closed_at: closedAt }).where('id', '=', threadId).execute());
  const [view] = await threadViews(db, [{ ...thread, title, closed_at: closedAt }]);
  return view;
}
