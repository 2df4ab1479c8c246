import type { Kysely } from 'kysely';

// Which comment of a site each imported source comment became, keyed by "<format>:<source id>":
// importing the same file again (or finishing one that was cut short) finds what is already there.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('import_sources')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('source_key', 'text', (c) => c.notNull())
    .addColumn('comment_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('import_sources_pk', ['site_id', 'source_key'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
