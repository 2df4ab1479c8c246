import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDisqusExport } from '../../test/generated-disqus.ts';
import { seedDatabase, spawnServer, withDatabase, type ChildServer } from '../../test/hardening/child-server.ts';
import { freshDatabaseUrl, type FreshDatabase } from '../../test/helper.ts';
import { finishedImport, getWith, uploadImport } from '../../test/imports.ts';
import { sleep } from '../../test/receiver.ts';
import { findJobById, STOPPED } from './jobs.ts';

const scratch = mkdtempSync(join(tmpdir(), 'parley-import-crash-'));
const FILE = join(scratch, 'disqus.xml');
/** An instance that stops renewing its jobs' leases is taken for gone after 2 s. */
const ENV = { PARLEY_IMPORT_LEASE: '2s' };

let database: FreshDatabase;
let server: ChildServer | undefined;
beforeAll(() => writeDisqusExport(FILE, 20_000, 200));
afterAll(async () => {
  server?.process.kill('SIGKILL');
  await database?.drop();
  rmSync(scratch, { recursive: true, force: true });
});

/** Processes running the import of this job (`parley import … --job <id>`). */
function importProcesses(jobId: string): string[] {
  return readdirSync('/proc').filter((pid) => {
    try {
      return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(jobId);
    } catch {
      return false; // gone meanwhile
    }
  });
}

/** The site's export with ids numbered in order of appearance: what an import made of the file, whatever ids it minted. */
async function exported(url: string, site: { site_id: string; api_key: string }): Promise<string> {
  const seen = new Map<string, string>();
  const text = (await getWith({ url }, `/api/sites/${site.site_id}/export`, site.api_key)).body as string;
  return text
    .split('\n')
    .slice(1)
    .join('\n')
    .replace(/\b(thr|cmt|usr)_[0-9a-z]+/g, (id, prefix) => seen.get(id) ?? (seen.set(id, `${prefix}_${seen.size}`), seen.get(id)!));
}

describe('an import killed with its server', () => {
  it('shows failed with the reason once the server is back, and the same file again completes it to what an uninterrupted import makes', async () => {
    database = await freshDatabaseUrl();
    const site = await seedDatabase(database.url);
    const body = readFileSync(FILE);
    server = await spawnServer(database.url, ENV);
    const started = await uploadImport(server, site.site_id, site.api_key, body);
    expect(started.status).toBe(202);
    // Killed in the second pass, with some comments written and more to come.
    for (let job = started.body; job.progress.comments_processed === 0; await sleep(100)) {
      job = (await getWith(server, `/api/sites/${site.site_id}/imports/${started.body.id}`, site.api_key)).body;
      expect(job.status).not.toBe('completed');
    }
    server.process.kill('SIGKILL');
    await server.exited;
    // The import's own process ends with the server, so nothing writes on behind the rerun.
    for (let waited = 0; importProcesses(started.body.id).length > 0; waited += 100) {
      expect(waited, 'the import process outlived its server').toBeLessThan(10_000);
      await sleep(100);
    }

    server = await spawnServer(database.url, ENV);
    const left = await finishedImport(server, site.site_id, site.api_key, started.body.id, 10_000);
    expect(left).toMatchObject({ status: 'failed', report: null, error: { message: STOPPED, line: null } });
    const rerun = await finishedImport(server, site.site_id, site.api_key, (await uploadImport(server, site.site_id, site.api_key, body)).body.id);
    expect(rerun.status).toBe('completed');
    expect(rerun.report.comments.already_present).toBeGreaterThan(0);

    // The same file into a site of its own, without a crash.
    const created = await fetch(`${server.url}/api/sites`, { method: 'POST', headers: { authorization: `Bearer ${site.api_key}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Uninterrupted' }) });
    const whole = { site_id: ((await created.json()) as { id: string }).id, api_key: site.api_key };
    const once = await finishedImport(server, whole.site_id, whole.api_key, (await uploadImport(server, whole.site_id, whole.api_key, body)).body.id);
    expect(rerun.report.comments.imported + rerun.report.comments.already_present).toBe(once.report.comments.imported);
    expect(await exported(server.url, site)).toBe(await exported(server.url, whole));
  }, 240_000);

  it('shut down (SIGTERM) mid-import, a server stops the import process and marks the job failed before it exits', async () => {
    const shared = await freshDatabaseUrl();
    try {
      const site = await seedDatabase(shared.url);
      const stopping = await spawnServer(shared.url, ENV);
      const started = await uploadImport(stopping, site.site_id, site.api_key, readFileSync(FILE));
      for (let job = started.body; job.status !== 'running'; await sleep(100)) {
        job = (await getWith(stopping, `/api/sites/${site.site_id}/imports/${started.body.id}`, site.api_key)).body;
      }
      stopping.process.kill('SIGTERM');
      expect(await stopping.exited).toBe(0);
      expect(importProcesses(started.body.id)).toEqual([]);
      const job = await withDatabase(shared.url, (db) => findJobById(db.kysely, started.body.id));
      expect(job).toMatchObject({ status: 'failed', error: STOPPED });
    } finally {
      await shared.drop();
    }
  }, 120_000);
});
