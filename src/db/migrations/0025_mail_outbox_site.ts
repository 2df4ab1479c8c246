import type { Kysely } from 'kysely';

// Moderation mails roll up per staff member and site, as reply mails do per reader and thread
// (mail_outbox_thread): queueing one reads when the last of that site went to them, and the worker
// takes and checks the pending ones of that site together. The index finds the last sent one and
// the earliest pending one due later as its first entry, not by reading every mail ever sent to them.
// Forgetting a reader's address, which deletes their mails of the site, also finds them through it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('mail_outbox_site')
    .on('mail_outbox')
    .columns(['recipient', 'site_id', 'kind', 'state', 'sent_at', 'next_attempt_at'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
