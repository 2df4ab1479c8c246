import type { Kysely } from 'kysely';

// The worker's poll per site: which sites have pending deliveries (one seek per site), and a site's
// oldest due ones, so a site whose receiver is busy or hanging is never read past its first row.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('webhook_deliveries_site_due').on('webhook_deliveries').columns(['state', 'site_id', 'next_attempt_at']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
