import { sql, type Kysely, type RawBuilder, type SqlBool, type Transaction } from 'kysely';
import type { Db } from './connect.ts';
import type { Database } from './schema.ts';

/**
 * SQLite's full-text index of comments (migration 0013). A trigger notes each comment written in
 * comments_search_backlog; this indexes the noted ones a thousand to a transaction, so FTS5 writes
 * one segment per batch instead of one per comment. Each comment is indexed under a key in time
 * order (created_at in ms × 1024 + a sequence), so FTS5 gives matches newest or oldest first.
 */
const BATCH = 1_000;
const EVERY_MS = 500;
/** Keys per millisecond before a key spills into the next millisecond's (order is then off by that much). */
const PER_MS = 1024;

async function newKey(trx: Transaction<Database>, createdAt: string): Promise<number> {
  const base = Date.parse(createdAt) * PER_MS;
  const { rows } = await sql<{ last: number | null }>`select max(search_key) as last from comments_search_keys
    where search_key >= ${base} and search_key < ${base + PER_MS}`.execute(trx);
  const next = rows[0].last === null ? base : Number(rows[0].last) + 1;
  if (next < base + PER_MS) return next;
  const { rows: after } = await sql<{ last: number }>`select max(search_key) as last from comments_search_keys where search_key >= ${base}`.execute(trx);
  return Number(after[0].last) + 1;
}

async function indexBatch(kysely: Kysely<Database>): Promise<number> {
  return kysely.transaction().execute(async (trx) => {
    const { rows: noted } = await sql<{ comment_rowid: number; indexed: number }>`
      select comment_rowid, indexed from comments_search_backlog order by comment_rowid limit ${sql.lit(BATCH)}`.execute(trx);
    if (noted.length === 0) return 0;
    const all = sql.join(noted.map((row) => sql.lit(Number(row.comment_rowid))));
    const again = noted.filter((row) => Number(row.indexed) === 1).map((row) => sql.lit(Number(row.comment_rowid)));
    // An edited or deleted comment leaves the index first; one that still exists keeps its key.
    const keys = new Map<number, number>();
    if (again.length > 0) {
      const { rows } = await sql<{ search_key: number; comment_rowid: number }>`
        select search_key, comment_rowid from comments_search_keys where comment_rowid in (${sql.join(again)})`.execute(trx);
      for (const row of rows) keys.set(Number(row.comment_rowid), Number(row.search_key));
      if (rows.length > 0) {
        await sql`delete from comments_search where rowid in (${sql.join(rows.map((row) => sql.lit(Number(row.search_key))))})`.execute(trx);
        await sql`delete from comments_search_keys where comment_rowid in (${sql.join(again)})`.execute(trx);
      }
    }
    const { rows: comments } = await sql<{ rowid: number; created_at: string; content: string | null; author_name: string }>`
      select rowid, created_at, content, author_name from comments where rowid in (${all}) order by created_at, id`.execute(trx);
    for (const comment of comments) {
      const kept = keys.get(Number(comment.rowid));
      // A key is kept while it is of the same time (a rowid freed by a delete may hold a new comment).
      const key = kept !== undefined && Math.floor(kept / PER_MS) === Date.parse(comment.created_at) ? kept : await newKey(trx, comment.created_at);
      await sql`insert into comments_search_keys (search_key, comment_rowid) values (${key}, ${comment.rowid})`.execute(trx);
      await sql`insert into comments_search (rowid, content, author_name) values (${key}, ${comment.content}, ${comment.author_name})`.execute(trx);
    }
    await sql`delete from comments_search_backlog where comment_rowid in (${all})`.execute(trx);
    return noted.length;
  });
}

/** Indexes every comment noted so far: a search that follows sees every committed comment. */
export async function catchUpSearchIndex(kysely: Kysely<Database>): Promise<void> {
  while ((await indexBatch(kysely)) === BATCH);
}

export interface SearchIndexer {
  stop(): Promise<void>;
}

/** SQLite: indexes noted comments every half second, so searches find little left to do. */
export function startSearchIndexer(db: Db, onError: (error: unknown) => void): SearchIndexer {
  if (db.dialect !== 'sqlite') return { stop: async () => undefined };
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    running ??= catchUpSearchIndex(db.kysely)
      .catch(onError)
      .finally(() => (running = null));
  }, EVERY_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}

/** Matches a search reads at most per request; past them, a page may come back short, with a cursor to go on. */
export const SEARCH_READ_CAP = 5_000;

export interface SearchWalk {
  /** The page's comments in order, up to `limit + 1` (the extra one: there is more). */
  found: Array<{ id: string; key: number }>;
  /** Where the walk stopped, when it stopped at the read cap before the page was full. */
  stoppedAt: number | null;
}

/**
 * SQLite: the comments that contain every term and pass `filter` (SQL over comments `c`), in time
 * order from `after` (a search key), read from FTS5 in that order in growing chunks and checked
 * against the filter a chunk at a time. FTS5 reads matches in key order from its newest or oldest
 * end; the filter is one rowid lookup per match.
 */
export async function walkSearch(
  kysely: Kysely<Database>,
  terms: string[],
  filter: RawBuilder<SqlBool>,
  direction: 'asc' | 'desc',
  after: number | null,
  limit: number,
): Promise<SearchWalk> {
  await catchUpSearchIndex(kysely);
  // Each term a quoted phrase: FTS5 syntax in the user's words is never interpreted.
  const match = terms.map((term) => `"${term}"`).join(' ');
  const found: SearchWalk['found'] = [];
  let from = after;
  let read = 0;
  let chunk = Math.max(64, (limit + 1) * 4);
  while (found.length <= limit) {
    const beyond = from === null ? sql`` : sql`and s.rowid ${sql.raw(direction === 'desc' ? '<' : '>')} ${from}`;
    const { rows: matches } = await sql<{ search_key: number; comment_rowid: number }>`
      select s.rowid as search_key, k.comment_rowid from comments_search s join comments_search_keys k on k.search_key = s.rowid
      where s.comments_search match ${match} ${beyond} order by s.rowid ${sql.raw(direction)} limit ${sql.lit(chunk)}`.execute(kysely);
    if (matches.length === 0) return { found, stoppedAt: null };
    const { rows: passing } = await sql<{ rowid: number; id: string }>`select c.rowid, c.id from comments c
      where c.rowid in (${sql.join(matches.map((row) => sql.lit(Number(row.comment_rowid))))}) and ${filter}`.execute(kysely);
    const ids = new Map(passing.map((row) => [Number(row.rowid), row.id]));
    for (const row of matches) {
      const id = ids.get(Number(row.comment_rowid));
      if (id !== undefined && found.length <= limit) found.push({ id, key: Number(row.search_key) });
    }
    if (matches.length < chunk) return { found, stoppedAt: null };
    from = Number(matches[matches.length - 1].search_key);
    read += matches.length;
    if (read >= SEARCH_READ_CAP && found.length <= limit) return { found, stoppedAt: from };
    chunk = Math.min(chunk * 2, 2_000);
  }
  return { found, stoppedAt: null };
}
