import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { dialectName, freshDatabaseUrl, type FreshDatabase } from '../../test/helper.ts';
import { loadConfig } from '../config.ts';
import { connect, type Db } from './connect.ts';
import { migrateToLatest } from './migrate.ts';

const run = promisify(execFile);
const ALL_MIGRATIONS = ['0001_initial', '0002_webhook_deliveries', '0003_top_level_indexes', '0004_thread_listing', '0005_comments_only_author_sees', '0006_webhook_site_due', '0007_list_revisions', '0008_marks_revision'];

let database: FreshDatabase | undefined;
const opened: Db[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.close()));
  await database?.drop();
  database = undefined;
});

function open(url: string): Db {
  const db = connect(loadConfig({ DATABASE_URL: url }));
  opened.push(db);
  return db;
}

async function appliedNames(db: Db): Promise<string[]> {
  const rows = await db.kysely.selectFrom('kysely_migration' as never).select('name' as never).orderBy('name' as never).execute();
  return rows.map((row) => (row as { name: string }).name);
}

describe('parley migrate', () => {
  it('applies every migration once, then reports the database up to date', async () => {
    database = await freshDatabaseUrl();
    const env = { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'silent' };
    const first = await run('node', ['bin/parley.js', 'migrate'], { env });
    expect(first.stdout).toBe(`applied: ${ALL_MIGRATIONS.join(', ')}\n`);
    const again = await run('node', ['bin/parley.js', 'migrate'], { env });
    expect(again.stdout).toBe('database is up to date\n');
  });

  it('run by three processes at once on a fresh database: all succeed, one applies the set', async () => {
    database = await freshDatabaseUrl();
    const env = { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'silent' };
    const outputs = await Promise.all([1, 2, 3].map(() => run('node', ['bin/parley.js', 'migrate'], { env })));
    const stdout = outputs.map((output) => output.stdout).sort();
    expect(stdout).toEqual([`applied: ${ALL_MIGRATIONS.join(', ')}\n`, 'database is up to date\n', 'database is up to date\n']);
    expect(await appliedNames(open(database.url))).toEqual(ALL_MIGRATIONS);
  });

  // Pools in one process race for real (processes rarely overlap: start-up takes longer than the
  // migrations). On SQLite a lock wait blocks the whole process, so this race needs PostgreSQL.
  it.skipIf(dialectName !== 'postgres')('from four instances starting together: all succeed, one applies the set', async () => {
    database = await freshDatabaseUrl();
    const url = database.url;
    const instances = [1, 2, 3, 4].map(() => open(url));
    const results = await Promise.all(instances.map((db) => migrateToLatest(db)));
    expect(results.filter((applied) => applied.length > 0)).toEqual([ALL_MIGRATIONS]);
    expect(results.filter((applied) => applied.length === 0)).toHaveLength(3);
    expect(await appliedNames(instances[0])).toEqual(ALL_MIGRATIONS);
  });
});
