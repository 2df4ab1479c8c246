import { sql, type Kysely } from 'kysely';

// Digests (src/mail/digests.ts): how often a reader or a staff member is mailed, in which time zone
// their digest hour falls, and when their next digest is due. The mail worker takes a due digest by
// moving `digest_due_at` on with a compare-and-set, so one instance sends it.
export async function up(db: Kysely<unknown>): Promise<void> {
  // `instant` (a mail per event, as before), `daily`, `weekly` or `off`.
  await db.schema.alterTable('site_users').addColumn('mail_frequency', 'text', (c) => c.notNull().defaultTo('instant')).execute();
  // IANA name; null: UTC.
  await db.schema.alterTable('site_users').addColumn('time_zone', 'text').execute();
  // Set while the reader has a digest frequency; null otherwise.
  await db.schema.alterTable('site_users').addColumn('digest_due_at', 'text').execute();
  // The worker looks for due digests every poll: only readers who chose one are in this index.
  await db.schema.createIndex('site_users_digest_due').on('site_users').column('digest_due_at').where(sql.ref('digest_due_at'), 'is not', null).execute();
  // `instant` (moderation mails as comments wait, as before) or `daily`.
  await db.schema.alterTable('staff').addColumn('moderation_mail_frequency', 'text', (c) => c.notNull().defaultTo('instant')).execute();
  await db.schema.alterTable('staff').addColumn('time_zone', 'text').execute();
  await db.schema.alterTable('staff').addColumn('digest_due_at', 'text').execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
