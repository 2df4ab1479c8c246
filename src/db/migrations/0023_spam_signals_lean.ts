import { sql, type Kysely } from 'kysely';

// A spam signal (0017) is written to fewer b-trees, as every one of them costs each screened comment
// a page written into its commit. The thread's pace is counted in the comments themselves
// (comments_thread_time, 0013), so the thread index goes. The comment id needs no index of its own:
// signals are only ever looked up by site, text or range, and an index of random ids made each
// signal dirty another page. SQLite drops a primary key only with its table, so the table is built
// again, its day of signals copied; its columns stay, for instances of the previous version, which
// still write thread_key.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('spam_signals_next')
    .addColumn('comment_id', 'text', (c) => c.notNull())
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('thread_key', 'text', (c) => c.notNull())
    .addColumn('author_key', 'text', (c) => c.notNull())
    .addColumn('ip_range', 'text')
    .addColumn('text_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await sql`insert into spam_signals_next (comment_id, site_id, thread_key, author_key, ip_range, text_hash, created_at)
    select comment_id, site_id, thread_key, author_key, ip_range, text_hash, created_at from spam_signals`.execute(db);
  await db.schema.dropTable('spam_signals').execute();
  await db.schema.alterTable('spam_signals_next').renameTo('spam_signals').execute();
  await db.schema.createIndex('spam_signals_text').on('spam_signals').columns(['site_id', 'text_hash', 'created_at']).execute();
  await db.schema.createIndex('spam_signals_site').on('spam_signals').columns(['site_id', 'created_at']).execute();
  await db.schema
    .createIndex('spam_signals_ip')
    .on('spam_signals')
    .columns(['site_id', 'ip_range', 'created_at'])
    .where(sql.ref('ip_range'), 'is not', null)
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
