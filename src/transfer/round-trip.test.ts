import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDisqusExport } from '../../test/generated-disqus.ts';
import { freshDatabaseUrl, type FreshDatabase } from '../../test/helper.ts';
import { loadConfig } from '../config.ts';
import { connect, type Db } from '../db/connect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { bootstrap } from '../sites/bootstrap.ts';
import { exportSite } from './export.ts';
import { importFile } from './import.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const scratch = mkdtempSync(join(tmpdir(), 'parley-round-trip-'));
const databases: FreshDatabase[] = [];
const opened: Db[] = [];

async function freshDb(): Promise<{ db: Db; url: string }> {
  const database = await freshDatabaseUrl();
  databases.push(database);
  const db = connect({ ...loadConfig({}), databaseUrl: database.url });
  opened.push(db);
  await migrateToLatest(db);
  return { db, url: database.url };
}

afterAll(async () => {
  for (const db of opened) await db.close();
  for (const database of databases) await database.drop();
});

async function exported(db: Db, siteId: string, format: 'parley' | 'disqus', includePersonalData: boolean): Promise<string> {
  const chunks: string[] = [];
  await exportSite(db.kysely, { siteId, format, includePersonalData }, new Writable({ write: (chunk, _e, done) => (chunks.push(String(chunk)), done()) }));
  return chunks.join('');
}

describe("Parley's own export", () => {
  let source: Db;
  let siteId: string;

  beforeAll(async () => {
    ({ db: source } = await freshDb());
    siteId = (await bootstrap(source.kysely, { siteName: 'Blog', domains: [] })).site_id;
    await importFile(source, { siteId, path: join(FIXTURES, 'disqus.xml') });
    const remark = join(scratch, 'remark42.gz');
    writeFileSync(remark, gzipSync(readFileSync(join(FIXTURES, 'remark42.jsonl'))));
    await importFile(source, { siteId, path: remark });
    // What only Parley has: a shadow-banned comment and reactions.
    const graces = source.kysely.selectFrom('comments').select('id').where('site_id', '=', siteId).where('author_name', '=', 'Grace <3');
    await source.kysely.updateTable('comment_counts').set({ reaction_counts: '{"funny":2}' }).where('comment_id', 'in', graces).execute();
    await source.kysely.updateTable('comments').set({ moderation_status: 'shadow_banned' }).where('site_id', '=', siteId).where('author_name', '=', 'Grace <3').execute();
  });

  it('has a header, threads, comments with parents before replies, and a footer with counts', async () => {
    const lines = (await exported(source, siteId, 'parley', false)).trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(lines[0]).toEqual({ type: 'header', format: 'parley', version: 1, site: { id: siteId, name: 'Blog' }, personal_data: false });
    const kinds = lines.map((line) => line.type);
    expect(kinds).toEqual(['header', 'thread', 'thread', 'thread', ...Array(12).fill('comment'), 'footer']);
    const seen = new Set<string>();
    for (const line of lines.filter((l) => l.type === 'comment')) {
      if (line.parent_id) expect(seen.has(line.parent_id)).toBe(true);
      seen.add(line.id);
      expect(line).not.toHaveProperty('author_external_id');
    }
    const ajv = new Ajv2020({ allErrors: true });
    addFormats.default(ajv);
    const valid = ajv.compile(JSON.parse(readFileSync(join(import.meta.dirname, 'parley-export.schema.json'), 'utf8')));
    for (const line of lines) expect(valid(line) ? null : ajv.errorsText(valid.errors)).toBeNull();
    expect(lines.at(-1)).toEqual({ type: 'footer', threads: 3, comments: 12, by_status: { published: 8, deleted: 2, pending: 1, spam: 1 } });
  });

  for (const includePersonalData of [false, true]) {
    it(`round-trips without loss${includePersonalData ? ' with personal data' : ''}: export, import into a new site, export again`, async () => {
      const first = await exported(source, siteId, 'parley', includePersonalData);
      const file = join(scratch, `first-${includePersonalData}.jsonl`);
      writeFileSync(file, first);
      const { db: target } = await freshDb();
      const newSiteId = (await bootstrap(target.kysely, { siteName: 'Blog', domains: [] })).site_id;
      const report = await importFile(target, { siteId: newSiteId, path: file });
      expect(report).toMatchObject({ format: 'parley', comments: { imported: 12 }, reparented: 0, skipped: {} });
      const second = await exported(target, newSiteId, 'parley', includePersonalData);
      expect(second).toBe(first.replaceAll(siteId, newSiteId));
      // Importing it again, even into the site it came from, adds nothing.
      expect((await importFile(target, { siteId: newSiteId, path: file })).comments).toMatchObject({ imported: 0, already_present: 12 });
      expect((await importFile(source, { siteId, path: file })).comments).toMatchObject({ imported: 0, already_present: 12 });
    });
  }

  it('refuses a file cut short (no footer) before writing anything', async () => {
    const lines = (await exported(source, siteId, 'parley', false)).trimEnd().split('\n');
    const file = join(scratch, 'cut.jsonl');
    writeFileSync(file, `${lines.slice(0, -1).join('\n')}\n`);
    const { db: target } = await freshDb();
    const newSiteId = (await bootstrap(target.kysely, { siteName: 'Blog', domains: [] })).site_id;
    await expect(importFile(target, { siteId: newSiteId, path: file })).rejects.toThrow('the file ends without its footer (cut short?)');
    expect(await target.kysely.selectFrom('comments').select('id').execute()).toEqual([]);
  });
});

describe('an import killed mid-way', () => {
  it('is completed by a rerun, to the result of an uninterrupted import', async () => {
    const file = join(scratch, 'crash.xml');
    // Four batches of 2,000: the kill lands after the first commits and before the last.
    const total = 8_000;
    writeDisqusExport(file, total, 80);
    const { db, url } = await freshDb();
    const killed = (await bootstrap(db.kysely, { siteName: 'Blog', domains: [] })).site_id;
    const whole = (await bootstrap(db.kysely, { siteName: 'Blog', domains: [] })).site_id;
    const env = { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' };
    const child = spawn('node', ['bin/parley.js', 'import', '--site', killed, file], { env, stdio: 'ignore' });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    const count = async () => Number((await db.kysely.selectFrom('comments').select((eb) => eb.fn.countAll().as('n')).where('site_id', '=', killed).executeTakeFirstOrThrow()).n);
    for (let written = 0; written === 0; written = await count()) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGKILL');
    await exited;
    const partly = await count();
    expect(partly).toBeGreaterThan(0);
    expect(partly).toBeLessThan(total);
    const rerun = await importFile(db, { siteId: killed, path: file });
    expect(rerun.comments.already_present).toBe(partly);
    await importFile(db, { siteId: whole, path: file });
    const shape = async (site: string) => {
      const lines = (await exported(db, site, 'parley', false)).split('\n').filter((line) => line.includes('"comment"'));
      return lines.length;
    };
    expect(await shape(killed)).toBe(await shape(whole));
    const totals = async (site: string) =>
      (await db.kysely.selectFrom('threads').select(['url_key', 'public_total', 'all_total']).where('site_id', '=', site).orderBy('url_key').execute()).map((t) => [t.url_key, Number(t.public_total), Number(t.all_total)]);
    expect(await totals(killed)).toEqual(await totals(whole));
    const byStatus = async (site: string) =>
      (await db.kysely.selectFrom('comments').select(['status', 'is_deleted', 'listed_public', 'listed_all', (eb) => eb.fn.countAll().as('n')]).where('site_id', '=', site).groupBy(['status', 'is_deleted', 'listed_public', 'listed_all']).orderBy(['status', 'is_deleted', 'listed_public', 'listed_all']).execute()).map((r) => ({ ...r, n: Number(r.n), is_deleted: Number(r.is_deleted), listed_public: Number(r.listed_public), listed_all: Number(r.listed_all) }));
    expect(await byStatus(killed)).toEqual(await byStatus(whole));
  }, 240_000);
});
