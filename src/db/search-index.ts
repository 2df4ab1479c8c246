import { sql, type Kysely } from 'kysely';
import type { Db } from './connect.ts';
import type { Database } from './schema.ts';

/**
 * SQLite's full-text index of comments (migration 0013), kept in batches: a trigger notes each
 * comment written (comments_search_backlog) and this indexes the noted ones, a thousand to a
 * transaction, so FTS5 writes one segment per batch instead of one per comment.
 */
const BATCH = 1_000;
const EVERY_MS = 500;

async function indexBatch(kysely: Kysely<Database>): Promise<number> {
  return kysely.transaction().execute(async (trx) => {
    const { rows } = await sql<{ comment_rowid: number; indexed: number }>`
      select comment_rowid, indexed from comments_search_backlog order by comment_rowid limit ${sql.lit(BATCH)}`.execute(trx);
    if (rows.length === 0) return 0;
    const all = sql.join(rows.map((row) => sql.lit(Number(row.comment_rowid))));
    const indexed = rows.filter((row) => Number(row.indexed) === 1).map((row) => sql.lit(Number(row.comment_rowid)));
    // An edited or deleted comment leaves the index first; what still exists is indexed as it is now.
    if (indexed.length > 0) await sql`delete from comments_search where rowid in (${sql.join(indexed)})`.execute(trx);
    await sql`insert into comments_search (rowid, content, author_name) select rowid, content, author_name from comments where rowid in (${all})`.execute(trx);
    await sql`delete from comments_search_backlog where comment_rowid in (${all})`.execute(trx);
    return rows.length;
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
