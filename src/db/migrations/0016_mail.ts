import type { Kysely } from 'kysely';

// Mail. Readers' addresses per site (confirmed once, by a single-use link, unless an SSO token
// vouched for them), each with its own key that signs its unsubscribe links; a subscription per
// comment whose replies its author wants mailed; and the mail outbox, written in the transaction of
// what causes a mail, one row per recipient and cause (`idempotency_key`, unique), so a retried or
// repeated cause queues nothing twice. Per signed-in reader, whether "email me replies" starts
// ticked; per staff member, which moderation mails they want (off, pending, all).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mail_addresses')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('link_key', 'text', (c) => c.notNull())
    .addColumn('confirmed_at', 'text')
    .addColumn('confirm_token_hash', 'text')
    .addColumn('confirm_expires_at', 'text')
    .addColumn('unsubscribed_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mail_addresses_site_email').on('mail_addresses').columns(['site_id', 'email']).unique().execute();
  await db.schema.createIndex('mail_addresses_user').on('mail_addresses').column('user_id').execute();

  await db.schema
    .createTable('mail_subscriptions')
    .addColumn('comment_id', 'text', (c) => c.primaryKey())
    .addColumn('address_id', 'text', (c) => c.notNull().references('mail_addresses.id'))
    .addColumn('thread_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('unsubscribed_at', 'text')
    .execute();
  await db.schema.createIndex('mail_subscriptions_address').on('mail_subscriptions').columns(['address_id', 'thread_id']).execute();

  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('idempotency_key', 'text', (c) => c.notNull().unique())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('site_id', 'text')
    .addColumn('thread_id', 'text')
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .execute();
  // The worker's poll, and the roll-up: a recipient's mails of one thread, pending or sent last.
  await db.schema.createIndex('mail_outbox_due').on('mail_outbox').columns(['state', 'next_attempt_at']).execute();
  await db.schema.createIndex('mail_outbox_thread').on('mail_outbox').columns(['recipient', 'thread_id', 'state']).execute();

  await db.schema.alterTable('site_users').addColumn('notify_replies', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('staff').addColumn('moderation_mail', 'text', (c) => c.notNull().defaultTo('off')).execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
