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

/** Comments within this much of each other share one read of the keys already given out near them. */
const RUN_MS = 60_000;

/**
 * Keys for comments in (created_at, id) order: the first free one of each comment's millisecond, or
 * past it when a millisecond has more than PER_MS comments. The keys taken near them are read once
 * per run of comments close in time (a live batch is one run; an import's may be several).
 */
async function keysFor(trx: Transaction<Database>, times: number[]): Promise<number[]> {
  const taken = new Set<number>();
  for (let start = 0; start < times.length; ) {
    let end = start + 1;
    while (end < times.length && times[end] - times[end - 1] <= RUN_MS) end += 1;
    const { rows } = await sql<{ search_key: number }>`select search_key from comments_search_keys
      where search_key >= ${times[start] * PER_MS} and search_key < ${(times[end - 1] + 1) * PER_MS}`.execute(trx);
    for (const row of rows) taken.add(Number(row.search_key));
    start = end;
  }
  const keys: number[] = [];
  for (const time of times) {
    let key = time * PER_MS;
    while (taken.has(key)) key += 1;
    if (key >= (time + 1) * PER_MS) {
      // A crowded millisecond: after every key given out from it on (not read above).
      const { rows } = await sql<{ last: number }>`select max(search_key) as last from comments_search_keys where search_key >= ${time * PER_MS}`.execute(trx);
      key = Math.max(key, Number(rows[0].last) + 1);
    }
    taken.add(key);
    keys.push(key);
  }
  return keys;
}

/**
 * The batch's rows travel as one JSON array each, so every statement here has one text whatever the
 * batch and the writer keeps each prepared once. With the values written into the text, every batch
 * prepared four statements of its own, which the writer's statement cache (sqlite-driver.ts) kept
 * with up to 400 KB of program each for 1,000 rows: the server's peak RSS in the write benchmarks
 * was 214 MB instead of 165, and after indexing 110,500 comments again 248 MB instead of 137.
 */
const inList = (json: string) => sql`(select value from json_each(${json}))`;

async function indexBatch(kysely: Kysely<Database>): Promise<number> {
  return kysely.transaction().execute(async (trx) => {
    const { rows: noted } = await sql<{ comment_rowid: number; indexed: number }>`
      select comment_rowid, indexed from comments_search_backlog order by comment_rowid limit ${sql.lit(BATCH)}`.execute(trx);
    if (noted.length === 0) return 0;
    const all = inList(JSON.stringify(noted.map((row) => Number(row.comment_rowid))));
    const again = noted.filter((row) => Number(row.indexed) === 1).map((row) => Number(row.comment_rowid));
    // An edited or deleted comment leaves the index (and gets a key again if it still exists).
    if (again.length > 0) {
      const edited = inList(JSON.stringify(again));
      const { rows } = await sql<{ search_key: number }>`select search_key from comments_search_keys where comment_rowid in ${edited}`.execute(trx);
      if (rows.length > 0) {
        await sql`delete from comments_search where rowid in ${inList(JSON.stringify(rows.map((row) => Number(row.search_key))))}`.execute(trx);
        await sql`delete from comments_search_keys where comment_rowid in ${edited}`.execute(trx);
      }
    }
    const { rows: comments } = await sql<{ rowid: number; created_at: string; content: string | null; author_name: string }>`
      select rowid, created_at, content, author_name from comments where rowid in ${all} order by created_at, id`.execute(trx);
    if (comments.length > 0) {
      const keys = await keysFor(trx, comments.map((comment) => Date.parse(comment.created_at)));
      // One statement each for the whole batch: building and running one per comment cost more than FTS5 did.
      const keyed = JSON.stringify(comments.map((comment, i) => [keys[i], Number(comment.rowid)]));
      await sql`insert into comments_search_keys (search_key, comment_rowid) select value ->> 0, value ->> 1 from json_each(${keyed})`.execute(trx);
      const texts = JSON.stringify(comments.map((comment, i) => [keys[i], comment.content, comment.author_name]));
      await sql`insert into comments_search (rowid, content, author_name) select value ->> 0, value ->> 1, value ->> 2 from json_each(${texts})`.execute(trx);
    }
    await sql`delete from comments_search_backlog where comment_rowid in ${all}`.execute(trx);
    return noted.length;
  });
}

/** Indexes every comment noted so far: a search that follows sees every committed comment. */
export async function catchUpSearchIndex(kysely: Kysely<Database>): Promise<void> {
  // Read outside a transaction (SQLite's reader connection): most of the time there is nothing to
  // do, and a transaction would wait for its commit group.
  const { rows } = await sql`select 1 from comments_search_backlog limit 1`.execute(kysely);
  if (rows.length === 0) return;
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
 * order from `after` (a search key), in one statement: FTS5 yields its matches in key order (fast
 * from its newest or oldest end; reaching a key costs reading up to it, about 0.15 µs a match) to
 * at most SEARCH_READ_CAP of them, and each is checked against the filter by rowid until the page
 * is full. A short page asks where the read stopped, if it stopped at the cap.
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
  const beyond = after === null ? sql`` : sql`and s.rowid ${sql.raw(direction === 'desc' ? '<' : '>')} ${after}`;
  const order = sql.raw(direction);
  // The matches are a co-routine in key order, which the outer ORDER BY keeps without sorting; the
  // comments are read by rowid alone (with an index in reach of the filter, SQLite read the whole
  // site through it).
  const { rows } = await sql<{ search_key: number; id: string }>`
    select m.search_key, c.id from (
      select s.rowid as search_key, k.comment_rowid from comments_search s cross join comments_search_keys k on k.search_key = s.rowid
      where s.comments_search match ${match} ${beyond} order by s.rowid ${order} limit ${sql.lit(SEARCH_READ_CAP)}
    ) as m cross join comments as c not indexed on c.rowid = m.comment_rowid
    where ${filter} order by m.search_key ${order} limit ${sql.lit(limit + 1)}`.execute(kysely);
  const found = rows.map((row) => ({ id: row.id, key: Number(row.search_key) }));
  if (found.length > limit) return { found, stoppedAt: null };
  const { rows: last } = await sql<{ search_key: number }>`select s.rowid as search_key from comments_search s
    where s.comments_search match ${match} ${beyond} order by s.rowid ${order} limit 1 offset ${sql.lit(SEARCH_READ_CAP - 1)}`.execute(kysely);
  return { found, stoppedAt: last.length > 0 ? Number(last[0].search_key) : null };
}
