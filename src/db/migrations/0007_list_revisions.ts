import { sql, type Kysely } from 'kysely';
import { createTriggers } from '../dialect.ts';

// Counters that public lists check their kept parts against (src/comments/public-list.ts), so that
// what one instance keeps is exact however many instances write, without being told of writes:
// - comments.subtree_revision, on every top-level comment: moves whenever anything the public could
//   see in it or in the replies below it changes (a reply added, a shown column of any comment of
//   the subtree updated). Lists keep each top-level comment's serialised subtree by it.
// - threads.listing_revision: moves whenever a top-level comment is added or its listing flags
//   change, which is all that can reorder the thread's lists by time. Lists keep the ids of a page
//   sorted by time by it, so a deep page does not skip through the index on every read.
// Triggers keep both, so no write path (today's or a later one) can forget to.

/** The columns a list shows that a write can change (VIEW_COLUMNS in comments/view.ts). */
const SHOWN_COLUMNS = 'content, author_name, status, moderation_status, is_deleted, is_edited, upvotes, downvotes, reaction_counts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('comments').addColumn('subtree_revision', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('threads').addColumn('listing_revision', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await createTriggers(db, [
    {
      name: 'comments_shown_column_set',
      when: `after update of ${SHOWN_COLUMNS} on comments for each row`,
      body: sql`update comments set subtree_revision = subtree_revision + 1 where id = new.root_id`,
    },
    {
      name: 'comments_reply_added',
      when: 'after insert on comments for each row when (new.parent_id is not null)',
      body: sql`update comments set subtree_revision = subtree_revision + 1 where id = new.root_id`,
    },
    {
      name: 'comments_top_level_added',
      when: 'after insert on comments for each row when (new.parent_id is null)',
      body: sql`update threads set listing_revision = listing_revision + 1 where id = new.thread_id`,
    },
    {
      name: 'comments_listing_set',
      when: 'after update of listed_public, listed_all on comments for each row when (new.parent_id is null)',
      body: sql`update threads set listing_revision = listing_revision + 1 where id = new.thread_id`,
    },
  ]);
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
