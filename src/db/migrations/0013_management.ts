import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { createTriggers, searchedTextPostgres } from '../dialect.ts';

// What the management API (src/moderation, src/threads, src/keys, src/commenters, src/stats) reads
// and writes. Nothing here adds a statement to the comment create path's code; the triggers below
// are what it costs there (an FTS5 row on SQLite, a GIN entry on PostgreSQL, one upsert of the
// author's counts and one probe of the site's kept days).
const STATUSES = ['published', 'pending', 'removed', 'spam'] as const;

/** `1` when the row has that status, else `0`, as SQL over `new`, `old` or a table. */
const is = (row: string, status: string) => `(case when ${row}.status = '${status}' then 1 else 0 end)`;
/** `column = column + (new has it) - (old has it)` for every status: a status moved from one column to another. */
const moved = STATUSES.map((status) => `${status} = ${status} + ${is('new', status)} - ${is('old', status)}`).join(', ');

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;

  // Keys: the first characters of the secret (to recognise a key in a list) and when it was last
  // used, written at most once a minute per key by each instance (src/keys/last-used.ts).
  await db.schema.alterTable('api_keys').addColumn('prefix', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('last_used_at', 'text').execute();

  // Threads: a title set through the management API, and closed to new comments. The create path
  // reads closed_at with the statement it already runs on the thread (or the parent's join).
  await db.schema.alterTable('threads').addColumn('title', 'text').execute();
  await db.schema.alterTable('threads').addColumn('closed_at', 'text').execute();
  await db.schema.createIndex('threads_site_created').on('threads').columns(['site_id', 'created_at', 'id']).execute();

  // Flags a moderator has not dismissed yet, counted on the comment (the queue's "flagged" and
  // "most flagged"); dismissed flags stay, so the same reader flagging again changes nothing.
  await db.schema.alterTable('flags').addColumn('dismissed_at', 'text').execute();
  await db.schema.alterTable('comments').addColumn('flag_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await sql`update comments set flag_count = (select count(*) from flags where flags.comment_id = comments.id)
    where id in (select comment_id from flags)`.execute(db);

  // Timed bans: an outright ban stops applying at expires_at (null: never).
  await db.schema.alterTable('bans').addColumn('expires_at', 'text').execute();

  await db.schema
    .createTable('commenter_notes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('site_users.id'))
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('commenter_notes_user').on('commenter_notes').columns(['site_id', 'user_id', 'created_at']).execute();

  // Each author's comments on a site by status, for the queue's items and the commenter's profile:
  // counting a prolific author's comments on every page would read thousands of rows. Guests have
  // no author_ref and no counts. Concurrent comments of one author are already serialised by
  // lockAuthor, so the row is no new point of contention.
  await db.schema
    .createTable('author_counts')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('author_ref', 'text', (c) => c.notNull())
    .addColumn('published', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('pending', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('removed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('spam', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('author_counts_pk', ['site_id', 'author_ref'])
    .execute();

  // Comments per day by status, kept for finished days once a stats request has counted them
  // (src/stats): today is always counted live. A comment inserted into a kept day (an import) or a
  // status change of one moves the kept figures, so they stay exact; the insert's probe finds no
  // row for a live comment, whose day (today) is never kept.
  await db.schema
    .createTable('site_daily_counts')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('published', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('pending', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('removed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('spam', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('site_daily_counts_pk', ['site_id', 'day'])
    .execute();

  const added = STATUSES.map((status) => `${status} = ${status} + ${is('new', status)}`).join(', ');
  const removed = STATUSES.map((status) => `${status} = ${status} - ${is('old', status)}`).join(', ');
  const day = (row: 'new' | 'old') => `site_id = ${row}.site_id and day = substr(${row}.created_at, 1, 10)`;
  const author = (row: 'new' | 'old') => `site_id = ${row}.site_id and author_ref = ${row}.author_ref`;
  // One trigger on insert (one function call per comment on PostgreSQL).
  await createTriggers(db, [
    {
      name: 'comments_counted',
      when: 'after insert on comments for each row',
      body: sql.raw(
        `update site_daily_counts set ${added} where ${day('new')};
         insert into author_counts (site_id, author_ref, ${STATUSES.join(', ')})
           select new.site_id, new.author_ref, ${STATUSES.map((status) => is('new', status)).join(', ')} where new.author_ref is not null
           on conflict (site_id, author_ref) do update set ${STATUSES.map((status) => `${status} = author_counts.${status} + excluded.${status}`).join(', ')}`,
      ),
    },
    {
      name: 'comments_count_moved',
      when: 'after update of status on comments for each row when (old.status <> new.status)',
      body: sql.raw(`update site_daily_counts set ${moved} where ${day('new')}; update author_counts set ${moved} where ${author('new')}`),
    },
    {
      name: 'comments_uncounted',
      when: 'after delete on comments for each row',
      body: sql.raw(`update site_daily_counts set ${removed} where ${day('old')}; update author_counts set ${removed} where ${author('old')}`),
    },
  ]);
  await sql`insert into author_counts (site_id, author_ref, published, pending, removed, spam)
    select site_id, author_ref, ${sql.raw(STATUSES.map((status) => `sum(${is('comments', status)})`).join(', '))}
    from comments where author_ref is not null group by site_id, author_ref`.execute(db);

  // The moderation queue: a page in any order and filter is an index range, per site.
  const indexes: Array<[string, string[], string?]> = [
    // Every comment of a site by time; the status columns let "published" filter in the index.
    ['comments_site_time', ['site_id', 'created_at', 'id', 'status', 'is_deleted']],
    // A thread's comments by time; also counts a thread's comments by status from the index alone.
    ['comments_thread_time', ['thread_id', 'created_at', 'id', 'status', 'is_deleted']],
    // An author's comments by time (it replaces comments_author, its prefix).
    ['comments_author_time', ['site_id', 'author_ref', 'created_at', 'id']],
    // Partial: only the few rows that are not published (is_deleted in it, so counting the pending
    // ones reads no rows), deleted, or flagged (by time, and most flags first).
    ['comments_site_unpublished', ['site_id', 'status', 'is_deleted', 'created_at', 'id'], "status <> 'published'"],
    ['comments_site_deleted', ['site_id', 'created_at', 'id'], 'is_deleted = 1'],
    ['comments_site_flagged', ['site_id', 'created_at', 'id'], 'flag_count > 0'],
    ['comments_site_most_flagged', ['site_id', 'flag_count', 'created_at', 'id'], 'flag_count > 0'],
  ];
  for (const [name, columns, where] of indexes) {
    const index = db.schema.createIndex(name).on('comments').columns(columns);
    await (where ? index.where(sql.raw<boolean>(where)) : index).execute();
  }
  await db.schema.dropIndex('comments_author').execute();

  // Full-text search over content and author name, with each database's own engine (queries in
  // src/db/dialect.ts and src/db/search-index.ts). PostgreSQL: a GIN index over the text's tsvector
  // ('simple': no stemming, as SQLite's tokenizer). SQLite: an FTS5 index that stores no text
  // (contentless, rows deleted by rowid), in which each comment's rowid is a key in time order
  // (created_at in ms × 1024 + a sequence), kept beside the comment's own rowid in
  // comments_search_keys: FTS5 reads its matches newest or oldest first from any point, which is the
  // queue's order. FTS5 writes its pending terms out as a new segment at every savepoint, i.e. at
  // every comment of a commit group (80 µs of the create path's 260), so a trigger only notes the
  // comment (3 µs) and search-index.ts indexes the noted ones in batches (7 µs each), in the
  // background and before every search. `indexed`: the comment is in the index already (an edit, a
  // delete). Comments already there are noted, and indexed the same way.
  if (postgres) {
    await sql`create index comments_search on comments using gin (${searchedTextPostgres(null)})`.execute(db);
    return;
  }
  await sql`create virtual table comments_search using fts5(content, author_name, content = '', contentless_delete = 1,
    detail = none, tokenize = 'unicode61 remove_diacritics 0')`.execute(db);
  // Segments merged two at a time rather than four: a search reads every segment, and a two-word
  // search at 110,000 comments took 0.9 ms on the index built with the default, 0.24 ms with this.
  await sql`insert into comments_search (comments_search, rank) values ('automerge', 2)`.execute(db);
  await db.schema
    .createTable('comments_search_keys')
    .addColumn('search_key', 'integer', (c) => c.primaryKey())
    .addColumn('comment_rowid', 'integer', (c) => c.notNull().unique())
    .execute();
  await db.schema
    .createTable('comments_search_backlog')
    .addColumn('comment_rowid', 'integer', (c) => c.primaryKey())
    .addColumn('indexed', 'integer', (c) => c.notNull())
    .execute();
  const note = (row: 'new' | 'old', indexed: 0 | 1) =>
    sql.raw(`insert into comments_search_backlog (comment_rowid, indexed) values (${row}.rowid, ${indexed}) on conflict (comment_rowid) do nothing`);
  await createTriggers(db, [
    { name: 'comments_search_added', when: 'after insert on comments for each row', body: note('new', 0) },
    { name: 'comments_search_changed', when: 'after update of content, author_name on comments for each row', body: note('old', 1) },
    { name: 'comments_search_removed', when: 'after delete on comments for each row', body: note('old', 1) },
  ]);
  await sql`insert into comments_search_backlog (comment_rowid, indexed) select rowid, 0 from comments`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
