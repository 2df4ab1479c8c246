import type { Kysely } from 'kysely';

// Every reader in their own language (src/i18n): a site's default language and its own wording of
// any message; the language a staff member reads the dashboard and their mails in; and the language a
// reader last used, so that the mails they get later (replies, mentions) speak it. Null everywhere
// means "not chosen": English, or whatever the next source of a language gives.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sites').addColumn('language', 'text').execute();
  // JSON {lang: {key: text}}; null: the shipped words everywhere.
  await db.schema.alterTable('sites').addColumn('strings', 'text').execute();
  await db.schema.alterTable('staff').addColumn('language', 'text').execute();
  await db.schema.alterTable('site_users').addColumn('language', 'text').execute();
  await db.schema.alterTable('mail_addresses').addColumn('language', 'text').execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
