import type { Kysely } from 'kysely';

// Reader accounts: readers sign in by themselves, with a code mailed to their address or through an
// identity provider the site added (OpenID Connect, GitHub). Each way in is an identity of one site
// user (src/readers/sign-in.ts). Codes, links and provider sign-ins in progress are kept hashed and
// used once. A reader who deletes their account is erased after a grace period (`erase_after`).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('identity_providers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('client_secret', 'text', (c) => c.notNull())
    .addColumn('issuer', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('identity_providers_site').on('identity_providers').column('site_id').execute();

  await db.schema
    .createTable('reader_identities')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('email_verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('reader_identities_subject').on('reader_identities').columns(['site_id', 'provider', 'subject']).unique().execute();
  await db.schema.createIndex('reader_identities_user').on('reader_identities').column('user_id').execute();
  await db.schema.createIndex('reader_identities_email').on('reader_identities').columns(['site_id', 'email']).execute();

  await db.schema
    .createTable('sign_in_codes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('link_token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('return_to', 'text')
    .addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sign_in_codes_address').on('sign_in_codes').columns(['site_id', 'email']).execute();

  await db.schema
    .createTable('provider_sign_ins')
    .addColumn('state_hash', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('provider_id', 'text', (c) => c.notNull())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('return_to', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema.alterTable('site_users').addColumn('erase_after', 'text').execute();
  await db.schema.alterTable('sites').addColumn('email_sign_in', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('sites').addColumn('provider_avatars', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
