import type { Kysely } from 'kysely';

// The spam classifier's state per site (src/spam/classifier): its totals and version, its counts by
// word bucket (only the buckets it has seen: at most 131,072 rows a site), and the moderators'
// decisions it learnt from, by comment, so that a decision changed later re-labels instead of
// counting twice, and an earlier decision like a new comment can be named.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('classifier_models')
    .addColumn('site_id', 'text', (c) => c.primaryKey().references('sites.id'))
    .addColumn('spam_examples', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('ham_examples', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('spam_features', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('ham_features', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('classifier_counts')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('bucket', 'integer', (c) => c.notNull())
    .addColumn('spam', 'integer', (c) => c.notNull())
    .addColumn('ham', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('classifier_counts_pk', ['site_id', 'bucket'])
    .execute();
  await db.schema
    .createTable('classifier_examples')
    .addColumn('comment_id', 'text', (c) => c.primaryKey().references('comments.id'))
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('features', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('classifier_examples_site').on('classifier_examples').columns(['site_id', 'created_at']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
