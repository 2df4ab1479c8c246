/**
 * Import and export throughput on a generated Disqus export (`--comments`, default 200,000; the
 * full run 1,000,000), each against a baseline measured in the same run on the same kind of
 * database: a bare batched INSERT of the same comment rows (1,000 per transaction, no parsing, no
 * checks), and a bare keyset-paged SELECT of them written out as JSON Lines. Import and export run as
 * the CLI does, in a child process whose peak RSS (VmHWM) is read while it runs. A third case imports
 * a hostile file: 400 KB holding one post nested 50,000 elements deep, which the import must refuse
 * quickly and in little memory.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../src/config.ts';
import { connect } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { newId } from '../src/ids.ts';
import { bootstrap } from '../src/sites/bootstrap.ts';
import { freshPostgresDatabase } from '../test/helper.ts';
import { writeDisqusExport } from '../test/generated-disqus.ts';

export interface TransferResult {
  id: string;
  title: string;
  rate: number;
  /** What `rate` counts. */
  unit: string;
  /** NaN where the case has no baseline. */
  baselineRate: number;
  ratio: number;
  peakRssMb: number;
  target: string;
  met: boolean;
  /** The machine's 1-minute load average before the import or export. */
  load1: number;
}

const ROOT = join(import.meta.dirname, '..');

async function freshDatabase(dir: string, name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const server = process.env.DATABASE_URL;
  if (server?.startsWith('postgres')) return freshPostgresDatabase(server, `parley_bench_${name}`);
  return { url: `sqlite:${join(dir, `${name}.db`)}`, drop: async () => undefined };
}

async function withSite<T>(url: string, work: (db: ReturnType<typeof connect>, siteId: string) => Promise<T>): Promise<T> {
  const db = connect({ ...loadConfig({}), databaseUrl: url });
  try {
    await migrateToLatest(db);
    const { site_id } = await bootstrap(db.kysely, { siteName: 'Bench', domains: [] });
    return await work(db, site_id);
  } finally {
    await db.close();
  }
}

/** Runs the CLI; its wall time, the largest VmHWM read while it ran, and its exit code. */
async function cli(args: string[], url: string, stdout: string, mayFail = false): Promise<{ seconds: number; peakRssMb: number; code: number }> {
  const started = performance.now();
  const out = createWriteStream(stdout);
  await once(out, 'open');
  const child = spawn(process.execPath, [join(ROOT, 'bin/parley.js'), ...args], { env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' }, stdio: ['ignore', out, 'inherit'] });
  let peak = 0;
  const timer = setInterval(() => {
    try {
      const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (match) peak = Math.max(peak, Number(match[1]) / 1024);
    } catch {
      // Exited between two reads.
    }
  }, 50);
  const [code] = await once(child, 'exit');
  clearInterval(timer);
  out.close();
  if (code !== 0 && !mayFail) throw new Error(`parley ${args.join(' ')} exited ${code}`);
  return { seconds: (performance.now() - started) / 1000, peakRssMb: peak, code };
}

/** The baseline: the same number of comment rows, over the same pages, inserted 1,000 per transaction. */
async function bareInsert(url: string, comments: number, threads: number): Promise<number> {
  return withSite(url, async (db, siteId) => {
    const threadIds: string[] = [];
    for (let t = 0; t < threads; t++) threadIds.push(newId('thr'));
    const threadRows = threadIds.map((id, t) => ({ id, site_id: siteId, url_key: `https://bench.example.com/posts/${t}`, created_at: '2015-01-01T00:00:00.000Z', public_total: 0, all_total: 0 }));
    // 1,000 at a time: SQLite binds at most 32,766 values a statement.
    for (let start = 0; start < threadRows.length; start += 1000) await db.kysely.insertInto('threads').values(threadRows.slice(start, start + 1000)).execute();
    const started = performance.now();
    for (let start = 0; start < comments; start += 1000) {
      await db.kysely.transaction().execute(async (trx) => {
        for (let chunk = start; chunk < Math.min(start + 1000, comments); chunk += 200) {
          const rows = [];
          for (let c = chunk; c < Math.min(chunk + 200, comments); c++) {
            const id = newId('cmt');
            const time = new Date(Date.UTC(2015, 1, 1) + c * 60_000).toISOString();
            rows.push({ id, site_id: siteId, thread_id: threadIds[c % threads], parent_id: null, root_id: id, author_ref: null, author_name: `User ${c % 5000}`, content: `Comment ${c} on post ${c % threads}: a few words & a link (https://example.org/${c}).\n\nSecond paragraph.`, status: 'published', moderation_status: null, is_deleted: 0 as const, is_edited: 0 as const, created_at: time, updated_at: time, listed_public: 1 as const, listed_all: 1 as const });
          }
          await trx.insertInto('comments').values(rows).execute();
        }
      });
    }
    return comments / ((performance.now() - started) / 1000);
  });
}

/** The export's baseline: every comment of the site read in keyset pages of 1,000 and written as JSON Lines. */
async function bareSelect(url: string, siteId: string, file: string): Promise<number> {
  const db = connect({ ...loadConfig({}), databaseUrl: url });
  const out = createWriteStream(file);
  const started = performance.now();
  let count = 0;
  try {
    for (let after = ''; ; ) {
      const page = await db.kysely.selectFrom('comments').selectAll().where('site_id', '=', siteId).where('id', '>', after).orderBy('id').limit(1000).execute();
      if (page.length === 0) break;
      count += page.length;
      if (!out.write(page.map((row) => JSON.stringify(row)).join('\n') + '\n')) await once(out, 'drain');
      after = page.at(-1)!.id;
    }
  } finally {
    out.end();
    await db.close();
  }
  return count / ((performance.now() - started) / 1000);
}

/** Nesting that once cost the import time and memory growing with the square of its depth (61 s and 2.7 GB). */
const DEEP_LEVELS = 50_000;

/** The hostile file's import, refused: its wall time (the process's start included) and peak RSS. */
async function deepXmlImport(dir: string, url: string, siteId: string, log: (line: string) => void): Promise<TransferResult> {
  const file = join(dir, 'deep.xml');
  const post = '<post dsq:id="p1"><message>Hi</message><createdAt>2020-01-01T00:00:00Z</createdAt><author><name>A</name></author><thread dsq:id="t1"/>';
  writeFileSync(file, `<?xml version="1.0" encoding="utf-8"?>\n<disqus xmlns="http://disqus.com" xmlns:dsq="http://disqus.com/disqus-internals">\n<thread dsq:id="t1"><link>https://bench.example.com/deep</link></thread>\n${post}${'<a>x'.repeat(DEEP_LEVELS)}${'</a>'.repeat(DEEP_LEVELS)}</post>\n</disqus>\n`);
  const load1 = loadavg()[0];
  const run = await cli(['import', '--site', siteId, file, '--dry-run'], url, join(dir, 'deep-report.txt'), true);
  log(`import of ${(statSync(file).size / 1000).toFixed(0)} KB nested ${DEEP_LEVELS} deep: ${run.code === 0 ? 'taken' : 'refused'} in ${run.seconds.toFixed(1)} s; peak RSS ${run.peakRssMb.toFixed(0)} MB`);
  return {
    id: 'import-deep-xml',
    title: `parley import of a Disqus export nested ${DEEP_LEVELS} elements deep (seconds to refuse it)`,
    rate: run.seconds,
    unit: 's',
    baselineRate: NaN,
    ratio: NaN,
    peakRssMb: run.peakRssMb,
    target: 'refused, in < 5 s, RSS < 250 MB',
    met: run.code !== 0 && run.seconds < 5 && run.peakRssMb < 250,
    load1,
  };
}

export async function transferCases(comments: number, log: (line: string) => void): Promise<TransferResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-transfer-'));
  const threads = Math.max(1, Math.round(comments / 100));
  const file = join(dir, 'disqus.xml');
  const databases: { drop: () => Promise<void> }[] = [];
  try {
    writeDisqusExport(file, comments, threads);
    log(`transfer: a Disqus export of ${comments} comments on ${threads} pages, ${(statSync(file).size / 2 ** 20).toFixed(0)} MB`);
    const baseline = await freshDatabase(dir, 'bare');
    databases.push(baseline);
    const bareRate = await bareInsert(baseline.url, comments, threads);
    const target = await freshDatabase(dir, 'import');
    databases.push(target);
    const siteId = await withSite(target.url, async (_db, id) => id);
    const importLoad = loadavg()[0];
    const imported = await cli(['import', '--site', siteId, file, '--json'], target.url, join(dir, 'report.json'));
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
    const importRate = report.comments.imported / imported.seconds;
    log(`import: ${report.comments.imported} comments in ${imported.seconds.toFixed(1)} s = ${importRate.toFixed(0)}/s; bare batched insert ${bareRate.toFixed(0)}/s (${((importRate / bareRate) * 100).toFixed(0)} %); peak RSS ${imported.peakRssMb.toFixed(0)} MB`);
    const bareExportRate = await bareSelect(target.url, siteId, join(dir, 'bare.jsonl'));
    const exportLoad = loadavg()[0];
    const exported = await cli(['export', '--site', siteId], target.url, join(dir, 'export.jsonl'));
    const exportRate = report.comments.imported / exported.seconds;
    log(`export: ${exportRate.toFixed(0)} comments/s; bare keyset select ${bareExportRate.toFixed(0)}/s (${((exportRate / bareExportRate) * 100).toFixed(0)} %); peak RSS ${exported.peakRssMb.toFixed(0)} MB`);
    const deep = await deepXmlImport(dir, target.url, siteId, log);
    return [
      { id: 'import-disqus', title: `parley import of a ${comments}-comment Disqus export (comments/s)`, rate: importRate, unit: 'comments/s', baselineRate: bareRate, ratio: importRate / bareRate, peakRssMb: imported.peakRssMb, target: '≥ 50 % of a bare batched insert, RSS < 250 MB', met: importRate >= bareRate / 2 && imported.peakRssMb < 250, load1: importLoad },
      { id: 'export-parley', title: `parley export of the same site (comments/s)`, rate: exportRate, unit: 'comments/s', baselineRate: bareExportRate, ratio: exportRate / bareExportRate, peakRssMb: exported.peakRssMb, target: 'RSS < 250 MB', met: exported.peakRssMb < 250, load1: exportLoad },
      deep,
    ];
  } finally {
    for (const database of databases) await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { comments: { type: 'string', default: '200000' } } });
  // As npm run bench does: the CLI runs the bundle, as it is deployed, not the sources through tsx.
  execFileSync(process.execPath, [join(ROOT, 'scripts/build.js')], { cwd: ROOT, stdio: 'inherit' });
  const results = await transferCases(Number(values.comments), (line) => process.stdout.write(`${line}\n`));
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
}
