import { sql, type Kysely } from 'kysely';
import { findThread, publicViewRows } from '../comments/repository.ts';
import { threadKey } from '../comments/thread-url.ts';
import { VIEW_SELECTION_SQL, type ViewRow } from '../comments/view.ts';
import { preparedQuery } from '../db/prepared.ts';
import { shownAndLive } from '../db/migrations/0034_recent_comments.ts';
import type { Database } from '../db/schema.ts';

/** A comment the public sees, with its thread's URL (thread key) and title. */
export interface RecentRow extends ViewRow {
  thread_url: string;
  thread_title: string | null;
  updated_at: string;
}

/** How many batches a read takes at most: past them, a site whose newest comments are nearly all under hidden ones answers fewer. */
const MAX_BATCHES = 4;

const COLUMNS = sql.raw(VIEW_SELECTION_SQL);

/**
 * A batch of the newest comments whose own rows the public sees, newest first, of a site or one of
 * its threads, before (`created_at`, `id`) when given: comments_site_time or comments_thread_time
 * read newest first, held and deleted comments passed over within the index (migration 0042).
 */
const newestShown = preparedQuery(
  (db, { scope, before, size }: { scope: 'site' | 'thread'; before: boolean; size: number }, siteId: string, threadId: string | null, beforeAt: string | null, beforeId: string | null) => {
    const inThread = scope === 'thread' ? sql`and c.thread_id = ${threadId}` : sql``;
    const after = before ? sql`and c.created_at <= ${beforeAt} and (c.created_at < ${beforeAt} or c.id < ${beforeId})` : sql``;
    return sql<RecentRow>`
      select ${COLUMNS}, c.updated_at, t.url_key as thread_url, t.title as thread_title
      from comments c join comment_counts n on n.comment_id = c.id join threads t on t.id = c.thread_id
      where c.site_id = ${siteId} ${inThread} and ${sql.raw(shownAndLive('c'))} ${after}
      order by c.created_at desc, c.id desc limit ${sql.lit(size)}`.compile(db);
  },
);

/**
 * The `limit` newest comments the public sees of a site, or of one of its threads (`threadUrl`), newest
 * first: batches of the newest shown rows, from which replies under a hidden comment are dropped
 * (their ancestors checked in one statement a batch), until `limit` are found or MAX_BATCHES are read.
 */
export async function recentComments(db: Kysely<Database>, siteId: string, limit: number, threadUrl?: string): Promise<RecentRow[]> {
  let threadId: string | null = null;
  if (threadUrl !== undefined) {
    const thread = await findThread(db, siteId, threadKey(threadUrl, 'querystring/thread_url').href);
    if (!thread) return [];
    threadId = thread.id;
  }
  const size = Math.max(2 * limit, 20);
  const found: RecentRow[] = [];
  let last: RecentRow | undefined;
  for (let batch = 0; batch < MAX_BATCHES && found.length < limit; batch++) {
    const shape = { scope: threadId === null ? 'site' : 'thread', before: last !== undefined, size } as const;
    const rows = await newestShown(db, shape, siteId, threadId, last?.created_at ?? null, last?.id ?? null);
    const replies = rows.filter((row) => row.parent_id !== null).map((row) => row.id);
    const shown = new Set((await publicViewRows(db, replies)).map((row) => row.id));
    found.push(...rows.filter((row) => row.parent_id === null || shown.has(row.id)));
    if (rows.length < size) break;
    last = rows[rows.length - 1];
  }
  return found.slice(0, limit);
}
