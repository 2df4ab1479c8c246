import { sql, type Kysely } from 'kysely';
import { wilsonLowerBoundSql } from '../../votes/wilson.ts';
import { createTriggers, dialectOfDb, dropTriggers } from '../dialect.ts';

// What votes, reactions and replies change moves out of the comment's row into a narrow row of its
// own, `comment_counts`: the counts, the sort keys computed from them, the live streams' stamp and
// the subtree's revision (0007). A vote used to rewrite the whole comment row and, as it changed the
// sort keys and the stamp that indexes of `comments` hold, add an entry to each of its 17 indexes;
// now it rewrites a row of a few numbers, and a vote on a top-level comment adds entries to four
// small indexes (a reply's to two), while the comment row and its indexes are left alone.
//
// The orders by votes need their sort key beside what a list keeps (0010), so the top-level
// comments' listing flags are copied here by trigger, as they change (rarely: by moderation and
// deletion). Every comment has its row from its insert on, made by trigger, so no write path can
// forget it; an import that brings counts writes their rows just before its comments'.
//
// Migrations only add (docs/production.md): the columns stay on `comments`, unread and unwritten by
// this release. While a rolling upgrade runs, instances of the release before still write them; a
// trigger copies what they write here. Their sort and stamp indexes go: nothing of this release
// reads them, and every one of them cost each vote.

/** The columns a list shows that a write of the comment's row can change (VIEW_COLUMNS in comments/view.ts, but the counts). */
const SHOWN_COLUMNS = 'content, content_html, mentions, author_badges, pinned_at, author_name, status, moderation_status, is_deleted, is_edited';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Writes to comments wait until the copy below is committed, so none of an earlier release's is
  // missed; reads go on. (SQLite's migrations hold its write lock throughout: see inMigrationSession.)
  if (dialectOfDb(db) === 'postgres') await sql`lock table comments in share row exclusive mode`.execute(db);
  await db.schema
    .createTable('comment_counts')
    .addColumn('comment_id', 'text', (c) => c.primaryKey())
    .addColumn('thread_id', 'text', (c) => c.notNull())
    .addColumn('root_id', 'text', (c) => c.notNull())
    // 1 on a top-level comment: only those are sorted by their counts.
    .addColumn('top_level', 'integer', (c) => c.notNull())
    .addColumn('upvotes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('downvotes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('score', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('wilson', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('reaction_counts', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('counts_changed_at', 'text')
    .addColumn('listed_public', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('listed_all', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('subtree_revision', 'integer', (c) => c.notNull().defaultTo(0))
    // SQLite: rows kept in the primary key's own tree, so the join of every list's comment to its counts is one lookup, not two.
    .$call((table) => (dialectOfDb(db) === 'sqlite' ? table.modifyEnd(sql`without rowid`) : table))
    .execute();
  await sql`insert into comment_counts (comment_id, thread_id, root_id, top_level, upvotes, downvotes, score, wilson, reaction_counts, counts_changed_at, listed_public, listed_all, subtree_revision)
    select id, thread_id, root_id, case when parent_id is null then 1 else 0 end, upvotes, downvotes, score, wilson, reaction_counts, counts_changed_at, listed_public, listed_all, subtree_revision
    from comments`.execute(db);
  for (const [name, order] of [
    ['comment_counts_top', 'score'],
    ['comment_counts_best', 'wilson'],
  ] as const) {
    await db.schema
      .createIndex(name)
      .on('comment_counts')
      .columns(['thread_id', order, 'comment_id', 'listed_public', 'listed_all'])
      .where(sql.ref('top_level'), '=', 1)
      .execute();
  }
  await db.schema
    .createIndex('comment_counts_changed')
    .on('comment_counts')
    .columns(['thread_id', 'counts_changed_at'])
    .where(sql.ref('counts_changed_at'), 'is not', null)
    .execute();

  // Last, as dropping a trigger or an index of comments holds its reads too, until the commit.
  await dropTriggers(db, 'comments', ['comments_shown_column_set', 'comments_reply_added']);
  for (const index of ['comments_top_level_top_listed', 'comments_top_level_best_listed', 'comments_counts_changed']) await db.schema.dropIndex(index).execute();
  const revised = (row: 'new' | 'old') => sql.raw(`update comment_counts set subtree_revision = subtree_revision + 1 where comment_id = ${row}.root_id`);
  await createTriggers(db, [
    {
      name: 'comments_counts_added',
      when: 'after insert on comments for each row',
      body: sql`insert into comment_counts (comment_id, thread_id, root_id, top_level, listed_public, listed_all)
        values (new.id, new.thread_id, new.root_id, case when new.parent_id is null then 1 else 0 end, new.listed_public, new.listed_all)
        on conflict (comment_id) do nothing`,
    },
    { name: 'comments_counts_removed', when: 'after delete on comments for each row', body: sql`delete from comment_counts where comment_id = old.id` },
    {
      name: 'comments_listing_copied',
      when: 'after update of listed_public, listed_all on comments for each row when (new.parent_id is null)',
      body: sql`update comment_counts set listed_public = new.listed_public, listed_all = new.listed_all where comment_id = new.id`,
    },
    { name: 'comments_shown_column_set', when: `after update of ${SHOWN_COLUMNS} on comments for each row`, body: revised('new') },
    { name: 'comments_reply_added', when: 'after insert on comments for each row when (new.parent_id is not null)', body: revised('new') },
    // A vote's or reaction's statement moves the revision of its own row; a reply's counts move its top-level comment's.
    {
      name: 'comment_counts_reply_counted',
      when: 'after update of upvotes, downvotes, reaction_counts on comment_counts for each row when (new.top_level = 0)',
      body: revised('new'),
    },
    // What an instance of the release before writes during a rolling upgrade (this release never
    // writes these columns): its vote moves the counts by its own change, so votes through instances
    // of both releases add up; its reaction's counts are copied whole.
    {
      name: 'comments_counts_written',
      when: 'after update of upvotes, downvotes, reaction_counts on comments for each row',
      body: sql`update comment_counts set
        upvotes = upvotes + new.upvotes - old.upvotes, downvotes = downvotes + new.downvotes - old.downvotes, score = score + new.score - old.score,
        wilson = ${wilsonLowerBoundSql(sql`(upvotes + new.upvotes - old.upvotes)`, sql`(downvotes + new.downvotes - old.downvotes)`)},
        reaction_counts = new.reaction_counts, counts_changed_at = new.counts_changed_at, subtree_revision = subtree_revision + top_level
        where comment_id = new.id`,
    },
  ]);
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
