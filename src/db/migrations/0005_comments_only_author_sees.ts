import { sql, type Kysely } from 'kysely';

// A reader's list is the public's list plus their own marks unless they have comments in the thread
// that only they can see (pending, or published while shadow-banned). This index holds only such
// rows, so that question is one lookup however many comments the reader has written.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('comments_only_author_sees')
    .on('comments')
    .columns(['thread_id', 'author_ref'])
    .where(sql<boolean>`(status = 'pending' or (status = 'published' and moderation_status is not null))`)
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
