import type { Kysely } from 'kysely';

// A site user whose personal data an admin erased (DELETE /api/sites/:id/users/:user_id): when, so
// that asking again changes nothing and records nothing more. The row stays for their comments.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('site_users').addColumn('erased_at', 'text').execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
