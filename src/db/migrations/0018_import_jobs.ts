import { sql, type Kysely } from 'kysely';

// Imports started through the management API (src/transfer/jobs.ts): one row per uploaded file,
// its progress while it runs on the instance that received it, then its report or its error.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('import_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('format', 'text')
    .addColumn('dry_run', 'integer', (c) => c.notNull())
    .addColumn('file_bytes', 'integer', (c) => c.notNull())
    .addColumn('records_read', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('comments_processed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('report', 'text')
    .addColumn('error', 'text')
    .addColumn('error_line', 'integer')
    .addColumn('started_by_ref', 'text', (c) => c.notNull())
    .addColumn('started_by_name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    // Renewed while the job runs: a queued or running job past it was left by a stopped instance.
    .addColumn('lease_until', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('import_jobs_site_created').on('import_jobs').columns(['site_id', 'created_at', 'id']).execute();
  // One import at a time per site: two running side by side would race on the same source ids.
  await sql`create unique index import_jobs_one_active on import_jobs (site_id) where status in ('queued', 'running')`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
