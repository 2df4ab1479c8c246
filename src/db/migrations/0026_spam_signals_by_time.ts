import type { Kysely } from 'kysely';

// The spam checks read their signals from memory (src/spam/signal-store.ts); the table is read only
// by time: an instance's day of signals on its first comment, and on PostgreSQL the signals other
// instances wrote in the last seconds. The indexes by text and by range went unread, and each cost
// every signal a page written into its commit (a text's hash lands on a random page). Deleting a
// site's signals still finds them by site.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('spam_signals_text').execute();
  await db.schema.dropIndex('spam_signals_ip').execute();
  await db.schema.createIndex('spam_signals_time').on('spam_signals').column('created_at').execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
