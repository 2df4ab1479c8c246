import { sql, type Kysely } from 'kysely';

// The moderation queue's live stream: each change that puts a comment into the queue's states or
// takes it out of them (held on arrival, flagged, moderated, deleted) is kept here under the id of
// its outbox event, written in the change's transaction. Only those changes: published comments,
// votes and reactions never write here. The ids are time-ordered ULIDs, so a site's changes are read
// after a position with the (site_id, id) index, and old ones are pruned along the primary key.
// Live counts: a vote or reaction no longer takes a number in its thread's live sequence (which held
// the thread's row locked until commit, so a thread's votes committed one at a time); the statement
// that sets the comment's counts also stamps when they changed, and streams look for comments of
// their thread stamped since they last looked, along the partial index.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('comments').addColumn('counts_changed_at', 'text').execute();
  await db.schema
    .createIndex('comments_counts_changed')
    .on('comments')
    .columns(['thread_id', 'counts_changed_at'])
    .where(sql.ref('counts_changed_at'), 'is not', null)
    .execute();
  // Counts events numbered before: their counts are read when sent, and a resume now finds them by the stamp.
  await db.deleteFrom('live_events' as never).where('type' as never, '=', 'comment.counts' as never).execute();
  await db.schema
    .createTable('queue_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('comment_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('action', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('queue_events_site').on('queue_events').columns(['site_id', 'id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
