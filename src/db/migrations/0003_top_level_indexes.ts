import { sql, type Kysely } from 'kysely';

// PostgreSQL does not take `parent_id IS NULL` as fixing parent_id, so the (thread_id, parent_id,
// <sort>, id) indexes of 0001 could find a thread's top-level comments but not deliver them in page
// order: a page of a 50,000-comment thread read all of them and sorted (~150 ms at 1,000,000
// comments). Partial indexes over top-level comments give the order directly on both databases;
// the newest-first one also carries the visibility columns, so counting a thread's visible
// comments is an index-only scan. They replace the 0001 ones, which no query needs any more.
const TOP_LEVEL = [
  ['comments_top_level_newest', ['thread_id', 'created_at', 'id', 'status', 'moderation_status', 'is_deleted']],
  ['comments_top_level_top', ['thread_id', 'score', 'id']],
  ['comments_top_level_best', ['thread_id', 'wilson', 'id']],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, columns] of TOP_LEVEL) {
    await db.schema.createIndex(name).on('comments').columns([...columns]).where(sql.ref('parent_id'), 'is', null).execute();
  }
  for (const name of ['comments_thread_newest', 'comments_thread_top', 'comments_thread_best']) {
    await db.schema.dropIndex(name).execute();
  }
  // liked_by_site_owner looks for one moderator up-vote among possibly thousands of votes.
  await db.schema
    .createIndex('votes_owner_likes')
    .on('votes')
    .column('comment_id')
    .where(sql<boolean>`value = 1 and by_moderator = 1`)
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
