import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl, type FreshDatabase } from '../test/helper.ts';

const run = promisify(execFile);
let cliDatabase: FreshDatabase;
let serveDatabase: FreshDatabase;
let env: NodeJS.ProcessEnv;
const parley = (...args: string[]) => run('node', ['bin/parley.js', ...args], { env });

beforeAll(async () => {
  [cliDatabase, serveDatabase] = await Promise.all([freshDatabaseUrl(), freshDatabaseUrl()]);
  env = { ...process.env, DATABASE_URL: cliDatabase.url, LOG_LEVEL: 'silent' };
});
afterAll(() => Promise.all([cliDatabase.drop(), serveDatabase.drop()]));

describe('the parley CLI', () => {
  it('bootstraps an account, creates keys and changes the plan, printing JSON', async () => {
    const boot = JSON.parse((await parley('bootstrap', '--site-name', 'Blog', '--domain', 'blog.example.com', '--plan', 'publisher', '--moderation', 'guests', '--no-guests', '--json')).stdout);
    expect(boot).toEqual({ account_id: expect.stringMatching(/^acct_/), site_id: expect.stringMatching(/^site_/), api_key: expect.stringMatching(/^sk_/) });
    const key = JSON.parse((await parley('keys', 'create', '--account', boot.account_id, '--role', 'moderator', '--name', 'bot', '--site', boot.site_id, '--json')).stdout);
    expect(key).toEqual({ key_id: expect.stringMatching(/^key_/), api_key: expect.stringMatching(/^sk_/) });
    const plan = JSON.parse((await parley('plan', 'set', '--account', boot.account_id, '--plan', 'business')).stdout);
    expect(plan).toMatchObject({ plan: 'business', previous_plan: 'publisher' });
  });

  it('imports a file with a report, and exports the site', async () => {
    const boot = JSON.parse((await parley('bootstrap', '--site-name', 'Imported', '--json')).stdout);
    const fixture = 'src/transfer/fixtures/disqus.xml';
    const dry = (await parley('import', '--site', boot.site_id, fixture, '--dry-run')).stdout;
    expect(dry).toContain('Dry run (nothing written) from disqus:');
    expect(dry).toContain('  comments: 8 to import (5 published, 1 pending, 1 spam, 1 deleted), 0 already there');
    const report = JSON.parse((await parley('import', '--site', boot.site_id, fixture, '--json')).stdout);
    expect(report).toMatchObject({ format: 'disqus', dry_run: false, comments: { imported: 8 }, skipped: { no_usable_page_address: 1 }, reparented: 1 });
    const again = (await parley('import', '--site', boot.site_id, '--format', 'disqus', fixture)).stdout;
    expect(again).toContain('  comments: 0 imported (none), 8 already there');
    const lines = (await parley('export', '--site', boot.site_id)).stdout.trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(lines.at(-1)).toMatchObject({ type: 'footer', threads: 2, comments: 8 });
    const xml = (await parley('export', '--site', boot.site_id, '--format', 'disqus')).stdout;
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?>\n<disqus /);
    await expect(parley('import', '--site', boot.site_id, 'no-such-file.xml')).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('no-such-file.xml') });
  });

  it('says what is wrong in one line and exits non-zero', async () => {
    await expect(parley('keys', 'create', '--account', 'acct_x', '--role', 'owner', '--json')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--role must be one of admin, moderator, integration'),
    });
    await expect(run('node', ['bin/parley.js', 'migrate'], { env: { ...env, PORT: 'abc' } })).rejects.toMatchObject({
      code: 1,
      stderr: 'parley: PORT must be a whole number >= 0, got "abc"\n',
    });
  });

  it('serves, bootstraps a demo site on an empty database, and exits 0 on SIGTERM', async () => {
    const child = spawn('node', ['bin/parley.js', 'serve'], { env: { ...env, DATABASE_URL: serveDatabase.url, PORT: '0' } });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start: ${output}`)), 15_000);
      child.stdout.on('data', () => {
        if (output.includes('PARLEY_KEY=')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const base = /PARLEY_URL=(\S+)/.exec(output)![1];
    const key = /PARLEY_KEY=(\S+)/.exec(output)![1];
    const sites = await fetch(`${base}/v1/sites`, { headers: { authorization: `Bearer ${key}` } });
    expect(sites.status).toBe(200);
    const exit = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });
});
