import type { Kysely } from 'kysely';

// The two partial indexes of 0034 (a site's and a thread's newest comments the public sees) were the
// largest of `comments`, and every new comment wrote both. Recent comments and the feeds now read
// comments_site_time and comments_thread_time (0013) newest first, whose status and is_deleted
// columns skip held and deleted comments within the index; only a shadow-banned comment costs a
// row read to pass over. An instance of the release before reads the same indexes the same way.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('comments_site_recent').ifExists().execute();
  await db.schema.dropIndex('comments_thread_recent').ifExists().execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
