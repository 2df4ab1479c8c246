import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { seedDatabase, spawnServer, type ChildServer } from '../../test/hardening/child-server.ts';
import { dialectName, freshDatabaseUrl, startParley, type FreshDatabase } from '../../test/helper.ts';
import { sqlitePath } from '../db/connect.ts';

const run = promisify(execFile);
const backup = (databaseUrl: string, to: string) =>
  run(process.execPath, ['bin/parley.js', 'backup', '--to', to], { env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(dialectName !== 'sqlite')('parley backup of a live SQLite database', () => {
  let database: FreshDatabase;
  let server: ChildServer | undefined;
  afterEach(async () => {
    server?.process.kill('SIGKILL');
    await server?.exited;
    await database.drop();
  });

  it('copies it under continuous comment writes: the copy passes integrity_check and holds every comment acknowledged before the backup began', async () => {
    database = await freshDatabaseUrl();
    const site = await seedDatabase(database.url);
    const live = await spawnServer(database.url, { PARLEY_RATE_LIMIT_KEY_PER_MINUTE: '0' });
    server = live;
    const acknowledged: string[] = [];
    let writing = true;
    let refused = 0;
    const writer = async (lane: number) => {
      for (let i = 0; writing; i += 1) {
        const response = await fetch(`${live.url}/v1/comments`, {
          method: 'POST',
          headers: { authorization: `Bearer ${site.api_key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ site_id: site.site_id, thread_url: `https://blog.example.com/backup/${lane}`, content: `comment ${i} of lane ${lane}` }),
        });
        const body = (await response.json()) as { id: string };
        if (response.status === 201) acknowledged.push(body.id);
        else refused += 1;
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    while (acknowledged.length < 300) await sleep(50);

    const beforeBackup = [...acknowledged];
    const to = join(dirname(sqlitePath(database.url)), 'copy.db');
    const { stdout } = await backup(database.url, to);
    const duringBackup = acknowledged.length - beforeBackup.length;
    writing = false;
    await Promise.all(writers);

    expect(stdout).toMatch(/^backed up .*parley\.db to .*copy\.db: \d+ pages \([\d.]+ MB\) in [\d.]+ s; integrity check: ok\n$/);
    expect(refused).toBe(0);
    // The server went on acknowledging writes while the backup ran.
    expect(duringBackup).toBeGreaterThan(0);
    expect(existsSync(`${to}.partial`)).toBe(false);
    // It holds the site's secrets: readable by its owner alone.
    expect((statSync(to).mode & 0o777).toString(8)).toBe('600');
    const copy = new SQLite(to, { readonly: true });
    try {
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      const inCopy = new Set((copy.prepare('select id from comments').pluck().all() as string[]));
      expect(beforeBackup.filter((id) => !inCopy.has(id))).toEqual([]);
      // Nothing in the copy that the server never wrote.
      expect([...inCopy].filter((id) => !acknowledged.includes(id))).toEqual([]);
    } finally {
      copy.close();
    }

    // The copy is a database Parley serves.
    const restored = await startParley({ DATABASE_URL: `sqlite:${to}` });
    try {
      expect(await restored.request('GET', `/v1/comments/${beforeBackup.at(-1)}`)).toMatchObject({ status: 200, body: { id: beforeBackup.at(-1) } });
    } finally {
      await restored.close();
    }
  }, 120_000);
});

describe('parley backup on PostgreSQL', () => {
  it('copies nothing and says how to use pg_dump instead, without the password', async () => {
    const attempt = backup('postgres://parley:secret@db.internal:5432/parley', '/backups/parley.dump');
    await expect(attempt).rejects.toMatchObject({
      code: 1,
      stdout: '',
      stderr: expect.stringContaining('pg_dump --format=custom --file=/backups/parley.dump postgres://parley@db.internal:5432/parley'),
    });
    expect(((await attempt.catch((error: { stderr: string }) => error)) as { stderr: string }).stderr).not.toContain('secret');
  });
});
