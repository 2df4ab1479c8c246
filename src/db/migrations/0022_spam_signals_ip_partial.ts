import { sql, type Kysely } from 'kysely';

// The spam checks' IP-range index (0017) holds guests' signals only: the signals of users and keys
// have no range and are never looked up by one, and every index a signal is written to costs its
// comment another page written (and, on SQLite, copied into the savepoint journal of the comment's
// transaction). A lookup by a range (`ip_range = ?`) implies the index's condition, so both
// databases still use it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('spam_signals_ip').execute();
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
