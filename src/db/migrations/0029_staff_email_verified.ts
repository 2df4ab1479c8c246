import { sql, type Kysely } from 'kysely';

// A staff member's address is theirs once a link mailed to it is followed (src/staff/addresses.ts):
// until then it gets no mail, and whoever proves it later takes it over. Addresses from before were
// never proven but were all anyone had to go by: they count as confirmed from their creation.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('staff').addColumn('email_verified_at', 'text').execute();
  await sql`update staff set email_verified_at = created_at`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
