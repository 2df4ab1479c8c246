import type { Kysely } from 'kysely';

// A session records the API key that minted it, so revoking the key ends its sessions; the sessions
// minted before this migration name no key. The (site_id, user_id) index serves a ban, which ends
// its user's sessions on the site, and the management list of a site's sessions.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('key_id', 'text').execute();
  await db.schema.createIndex('sessions_key').on('sessions').column('key_id').execute();
  await db.schema.createIndex('sessions_site_user').on('sessions').columns(['site_id', 'user_id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
