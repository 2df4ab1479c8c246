import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl, startParley, type FreshDatabase } from '../test/helper.ts';

const run = promisify(execFile);
let cliDatabase: FreshDatabase;
let serveDatabase: FreshDatabase;
let env: NodeJS.ProcessEnv;
const parley = (...args: string[]) => run('node', ['bin/parley.js', ...args], { env });

/** The CLI with `input` on its stdin (not a terminal), as `printf ... | parley ...` runs it. */
function parleyWithInput(input: string, args: string[], database = cliDatabase.url): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('node', ['bin/parley.js', ...args], { env: { ...env, DATABASE_URL: database } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdin.end(input);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

beforeAll(async () => {
  [cliDatabase, serveDatabase] = await Promise.all([freshDatabaseUrl(), freshDatabaseUrl()]);
  env = { ...process.env, DATABASE_URL: cliDatabase.url, LOG_LEVEL: 'silent' };
});
afterAll(() => Promise.all([cliDatabase.drop(), serveDatabase.drop()]));

// Each test starts the CLI as a new process several times (one `node` start each, about a second on
// an idle machine): the default 30 s is too little on a loaded one.
describe('the parley CLI', { timeout: 120_000 }, () => {
  it('bootstraps an account, creates keys and changes the plan, printing JSON', async () => {
    const boot = JSON.parse((await parley('bootstrap', '--site-name', 'Blog', '--domain', 'blog.example.com', '--plan', 'publisher', '--moderation', 'guests', '--no-guests', '--json')).stdout);
    expect(boot).toEqual({ account_id: expect.stringMatching(/^acct_/), site_id: expect.stringMatching(/^site_/), api_key: expect.stringMatching(/^sk_/) });
    const key = JSON.parse((await parley('keys', 'create', '--account', boot.account_id, '--role', 'moderator', '--name', 'bot', '--site', boot.site_id, '--json')).stdout);
    expect(key).toEqual({ key_id: expect.stringMatching(/^key_/), api_key: expect.stringMatching(/^sk_/) });
    const plan = JSON.parse((await parley('plan', 'set', '--account', boot.account_id, '--plan', 'business')).stdout);
    expect(plan).toMatchObject({ plan: 'business', previous_plan: 'publisher' });
  });

  it('lists every site with its account, as a table and as JSON', async () => {
    const boot = JSON.parse((await parley('bootstrap', '--site-name', 'Listed blog', '--json')).stdout);
    const sites = JSON.parse((await parley('sites', 'list', '--json')).stdout);
    expect(sites).toContainEqual({ id: boot.site_id, name: 'Listed blog', account_id: boot.account_id, created_at: expect.any(String) });
    const table = (await parley('sites', 'list')).stdout.split('\n');
    expect(table[0]).toMatch(/^id\s+name\s+account\s+created$/);
    expect(table.find((line) => line.startsWith(boot.site_id))).toMatch(new RegExp(`^${boot.site_id}\\s+Listed blog\\s+${boot.account_id}\\s+\\d{4}-\\d\\d-\\d\\dT`));
  });

  it('creates a key for a site without --account: the account is the site\'s', async () => {
    const boot = JSON.parse((await parley('bootstrap', '--site-name', 'Lost key', '--json')).stdout);
    const key = JSON.parse((await parley('keys', 'create', '--site', boot.site_id, '--role', 'admin', '--json')).stdout);
    expect(key).toEqual({ key_id: expect.stringMatching(/^key_/), api_key: expect.stringMatching(/^sk_/) });
    const server = await startParley({ DATABASE_URL: cliDatabase.url });
    try {
      const sites = await server.request('GET', '/api/sites', { token: key.api_key });
      expect(sites.status).toBe(200);
      expect(sites.body.sites.map((site: { id: string }) => site.id)).toEqual([boot.site_id]);
    } finally {
      await server.close();
    }
    await expect(parley('keys', 'create', '--site', 'site_nope', '--role', 'admin')).rejects.toMatchObject({ code: 1, stderr: 'parley: no site site_nope\n' });
    const other = JSON.parse((await parley('bootstrap', '--site-name', 'Elsewhere', '--json')).stdout);
    await expect(parley('keys', 'create', '--site', boot.site_id, '--site', other.site_id, '--role', 'admin')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('the sites belong to different accounts: name one with --account'),
    });
    await expect(parley('keys', 'create', '--role', 'admin')).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--account or --site is required') });
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

  it('creates the first owner with admin create, the password from stdin, who then signs in', async () => {
    const database = await freshDatabaseUrl();
    try {
      const none = await parleyWithInput('a long enough password\n', ['admin', 'create', '--email', 'owner@example.com'], database.url);
      expect(none).toMatchObject({ code: 1, stderr: expect.stringContaining('there is no account yet') });
      const boot = JSON.parse((await run('node', ['bin/parley.js', 'bootstrap', '--site-name', 'Blog', '--json'], { env: { ...env, DATABASE_URL: database.url } })).stdout);
      const created = await parleyWithInput('a long enough password\n', ['admin', 'create', '--email', 'Owner@Example.com', '--name', 'Olive'], database.url);
      expect(created.code).toBe(0);
      expect(JSON.parse(created.stdout)).toEqual({ staff_id: expect.stringMatching(/^stf_/), email: 'owner@example.com', name: 'Olive', account_id: boot.account_id, role: 'owner' });
      const server = await startParley({ DATABASE_URL: database.url });
      try {
        const login = await server.request('POST', '/api/auth/login', { body: { email: 'owner@example.com', password: 'a long enough password' } });
        expect(login.status).toBe(200);
        expect(login.body.memberships).toEqual([expect.objectContaining({ account_id: boot.account_id, role: 'owner' })]);
      } finally {
        await server.close();
      }
      const again = await parleyWithInput('another long password\n', ['admin', 'create', '--email', 'owner@example.com'], database.url);
      expect(again).toMatchObject({ code: 1, stderr: expect.stringContaining('already a staff member') });
    } finally {
      await database.drop();
    }
  }, 90_000);

  it('says which account admin create needs, and refuses a short password', async () => {
    // The CLI database holds the accounts of the first test (and more below).
    await parley('bootstrap', '--site-name', 'Another', '--json');
    const several = await parleyWithInput('a long enough password\n', ['admin', 'create', '--email', 'someone@example.com']);
    expect(several).toMatchObject({ code: 1, stderr: expect.stringMatching(/^parley: there are several accounts: name one with --account \(acct_/) });
    const boot = JSON.parse((await parley('bootstrap', '--site-name', 'Third', '--json')).stdout);
    const short = await parleyWithInput('short\n', ['admin', 'create', '--email', 'someone@example.com', '--account', boot.account_id]);
    expect(short).toMatchObject({ code: 1, stderr: 'parley: the password must be 10 to 200 characters\n' });
    const unknown = await parleyWithInput('a long enough password\n', ['admin', 'create', '--email', 'someone@example.com', '--account', 'acct_nope']);
    expect(unknown).toMatchObject({ code: 1, stderr: 'parley: no account acct_nope\n' });
    const created = await parleyWithInput('a long enough password', ['admin', 'create', '--email', 'someone@example.com', '--account', boot.account_id]);
    expect(JSON.parse(created.stdout)).toMatchObject({ account_id: boot.account_id, role: 'owner' });
    await expect(parley('admin', 'create')).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--email is required') });
  }, 90_000);

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
    // The one-time setup link makes the demo account's first owner, once.
    const link = /PARLEY_SETUP_LINK=(\S+)/.exec(output)![1];
    expect(link).toMatch(new RegExp(`^${base}/dashboard/setup#token=setup_[0-9A-Za-z]{40}$`));
    const setup = (email: string) =>
      fetch(`${base}/api/auth/setup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: link.split('#token=')[1], email, name: 'Olive', password: 'a long enough password' }),
      });
    expect((await setup('owner@example.com')).status).toBe(201);
    expect((await setup('second@example.com')).status).toBe(404);
    const exit = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });
});
