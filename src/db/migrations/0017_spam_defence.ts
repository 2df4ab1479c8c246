import type { Kysely } from 'kysely';

// The spam pipeline (src/spam). Per site: its thresholds and word lists (one JSON document, read
// with the site; '{}' means every default), and the secret its form tokens and proof-of-work
// challenges are signed with (made on first use). Per comment: why the pipeline held it. What the
// duplicate and velocity checks count is kept in spam_signals, one row per comment written through
// the pipeline, for a day; proofs of work already used are kept until their challenge expires.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sites').addColumn('spam_settings', 'text', (c) => c.notNull().defaultTo('{}')).execute();
  await db.schema.alterTable('sites').addColumn('form_secret', 'text').execute();
  await db.schema.alterTable('comments').addColumn('spam_reasons', 'text').execute();
  await db.schema
    .createTable('spam_signals')
    .addColumn('comment_id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('thread_key', 'text', (c) => c.notNull())
    .addColumn('author_key', 'text', (c) => c.notNull())
    .addColumn('ip_range', 'text')
    .addColumn('text_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('spam_signals_text').on('spam_signals').columns(['site_id', 'text_hash', 'created_at']).execute();
  await db.schema.createIndex('spam_signals_ip').on('spam_signals').columns(['site_id', 'ip_range', 'created_at']).execute();
  await db.schema.createIndex('spam_signals_thread').on('spam_signals').columns(['site_id', 'thread_key', 'created_at']).execute();
  await db.schema.createIndex('spam_signals_site').on('spam_signals').columns(['site_id', 'created_at']).execute();
  await db.schema
    .createTable('spam_used_proofs')
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('signature', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('spam_used_proofs_pk', ['site_id', 'signature'])
    .execute();
  await db.schema.createIndex('spam_used_proofs_expiry').on('spam_used_proofs').column('expires_at').execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
