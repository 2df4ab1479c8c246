import type { Kysely } from 'kysely';

// Live updates: each thread numbers what the public saw change in it (threads.live_seq), and keeps
// the latest of those changes (live_events) so that a reader who reconnects, to any instance, gets
// what they missed. Both are written in the transaction of the change.
// Signed sign-on: a site's SSO secrets (HMAC keys, so kept as they are, like webhook secrets), the
// token ids already exchanged (refused again until their token expires), and, per user, the issue
// time of the token that last set their name and avatar (an older token does not set them back),
// and the e-mail address a token gave (kept for the site's moderators; never an identity).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('threads').addColumn('live_seq', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema
    .createTable('live_events')
    .addColumn('thread_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('comment_id', 'text', (c) => c.notNull())
    .addColumn('data', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('live_events_pk', ['thread_id', 'seq'])
    .execute();

  await db.schema.alterTable('sites').addColumn('live_updates', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('sites').addColumn('sso_moderators', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema
    .createTable('sso_secrets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sso_secrets_site').on('sso_secrets').columns(['site_id', 'created_at']).execute();
  await db.schema
    .createTable('sso_used_tokens')
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('jti', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('sso_used_tokens_pk', ['site_id', 'jti'])
    .execute();
  await db.schema.createIndex('sso_used_tokens_expiry').on('sso_used_tokens').column('expires_at').execute();
  await db.schema.alterTable('site_users').addColumn('profile_issued_at', 'integer').execute();
  await db.schema.alterTable('site_users').addColumn('email', 'text').execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
