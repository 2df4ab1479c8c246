import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from './connect.ts';
import * as initial from './migrations/0001_initial.ts';
import * as webhookDeliveries from './migrations/0002_webhook_deliveries.ts';
import * as threadListing from './migrations/0003_thread_listing.ts';

/**
 * Migrations are listed here explicitly (no directory scan), in order. They are additive, so a
 * migration can run while instances of the previous version still serve. Kysely's migrator holds a
 * lock row while it runs, so two instances starting at once do not both migrate.
 */
const MIGRATIONS: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_webhook_deliveries': webhookDeliveries,
  '0003_thread_listing': threadListing,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db: db.kysely, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
