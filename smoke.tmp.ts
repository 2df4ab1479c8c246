import { connect } from './src/db/connect.ts';
import { migrateToLatest } from './src/db/migrate.ts';
import { bootstrap } from './src/sites/bootstrap.ts';
import { importFile } from './src/transfer/import.ts';
import { loadConfig } from './src/config.ts';
const file = process.argv[2];
const db = connect({ ...loadConfig(), databaseUrl: 'sqlite::memory:' } as any);
await migrateToLatest(db);
const site = await bootstrap(db.kysely, { siteName: 'x', domains: [] } as any);
const report = await importFile(db, { siteId: site.site_id, path: file });
console.log(JSON.stringify(report, null, 1));
const rows = await db.kysely.selectFrom('comments as c').innerJoin('import_sources as s', 's.comment_id', 'c.id').leftJoin('import_sources as p', 'p.comment_id', 'c.parent_id').innerJoin('threads as t', 't.id', 'c.thread_id')
  .select(['s.source_key', 'p.source_key as parent', 't.url_key', 'c.author_name', 'c.author_ref', 'c.content', 'c.status', 'c.moderation_status', 'c.is_deleted', 'c.created_at', 'c.listed_public', 'c.listed_all', 'c.upvotes', 'c.downvotes', 'c.is_edited']).orderBy('c.created_at').execute();
for (const r of rows) console.log(JSON.stringify(r));
console.log(await db.kysely.selectFrom('threads').selectAll().execute());
await db.close();
