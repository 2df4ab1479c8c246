import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase, withDatabase } from '../../test/hardening/child-server.ts';
import { dialectName, freshDatabaseUrl, type FreshDatabase } from '../../test/helper.ts';
import { freePort, SHARED_REDIS_URL } from '../../test/redis-server.ts';
import { bootstrap } from '../sites/bootstrap.ts';

const run = promisify(execFile);

/** `parley doctor` with exactly these variables (and PATH): its exit code and what it printed. */
async function doctor(env: Record<string, string>): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await run(process.execPath, ['bin/parley.js', 'doctor'], { env: { PATH: process.env.PATH, ...env } });
    return { code: 0, out: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: failed.stdout + failed.stderr };
  }
}

let database: FreshDatabase;
let smtp: SMTPServer;
let smtpPort: number;
let closedPort: number;
let sites: { siteId: string }[];

beforeAll(async () => {
  database = await freshDatabaseUrl();
  sites = [{ siteId: (await seedDatabase(database.url)).site_id }];
  await withDatabase(database.url, async (db) => {
    const second = await bootstrap(db.kysely, { siteName: 'Second', plan: 'publisher' });
    const third = await bootstrap(db.kysely, { siteName: 'Third, unsubscribed', plan: 'publisher' });
    sites.push({ siteId: second.site_id });
    const hook = (id: string, url: string, events: string) => db.kysely.updateTable('sites').set({ webhook_url: url, webhook_secret: 'whsec_test', webhook_events: events }).where('id', '=', id).execute();
    await hook(sites[0].siteId, 'http://127.0.0.1:9/hooks', '["comment.created"]');
    await hook(second.site_id, 'https://hooks.parley-test.invalid/in', '["comment.created"]');
    // Subscribed to nothing: not an enabled endpoint, so never looked up.
    await hook(third.site_id, 'https://unsubscribed.parley-test.invalid/in', '[]');
  });
  smtp = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    onAuth: (auth, _session, done) => (auth.username === 'parley' && auth.password === 'right' ? done(null, { user: 'parley' }) : done(new Error('Invalid username or password'))),
  });
  smtpPort = await freePort();
  await new Promise<void>((resolve) => smtp.listen(smtpPort, '127.0.0.1', resolve));
  closedPort = await freePort();
});
afterAll(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  await database.drop();
});

describe('parley doctor', () => {
  it('says ok for each part that works, and exits 0 when only webhook endpoints are wrong', async () => {
    const { code, out } = await doctor({
      DATABASE_URL: database.url,
      REDIS_URL: SHARED_REDIS_URL,
      PARLEY_SMTP_URL: `smtp://parley:right@127.0.0.1:${smtpPort}`,
      PARLEY_MAIL_FROM: 'comments@example.com',
      PARLEY_WEBHOOK_ALLOW_PRIVATE: 'true',
      PARLEY_RATE_LIMIT_IP_PER_MINUTE: '100',
    });
    expect(out).toMatch(/^ok {4}configuration: 6 variables set, every value valid$/m);
    expect(out).toMatch(/^ok {4}database: (SQLite|PostgreSQL) at .* answers; every migration is applied$/m);
    expect(out).toMatch(/^ok {4}redis: redis:\/\/127\.0\.0\.1:6379\/? answers \(Redis \d+\.\d+/m);
    expect(out).toMatch(new RegExp(`^ok {4}smtp: smtp://parley:\\*\\*\\*@127\\.0\\.0\\.1:${smtpPort}/? accepts a connection and the sign-in$`, 'm'));
    expect(out).not.toContain('right');
    // Private addresses allowed: 127.0.0.1 is fine; the .invalid host never resolves.
    expect(out).toMatch(/^warn  webhooks: 2 enabled endpoints on 2 hosts: 1 cannot be delivered to$/m);
    expect(out).toMatch(new RegExp(`^warn  webhooks: hooks\\.parley-test\\.invalid does not resolve \\(\\w+\\) \\(site ${sites[1].siteId}\\): its deliveries fail$`, 'm'));
    expect(out).not.toContain('unsubscribed');
    expect(out).toMatch(/^0 failed, 2 warnings$/m);
    expect(code).toBe(0);
  });

  it('names every wrong variable with its value, and fails on a closed Redis or SMTP port; exit code 1', async () => {
    const { code, out } = await doctor({
      DATABASE_URL: database.url,
      PORT: 'abc',
      PARLEY_RATE_LIMIT_IP_PER_MINUTE: 'lots',
      PARLEY_LIVE_HEARTBEAT: '15',
      PARLEY_RATE_LIMIT_IP_PER_MINUT: '100',
      REDIS_URL: `redis://127.0.0.1:${closedPort}`,
      PARLEY_SMTP_URL: `smtp://127.0.0.1:${closedPort}`,
      PARLEY_MAIL_FROM: 'comments@example.com',
    });
    expect(out).toContain('fail  configuration: PORT must be a whole number >= 0, got "abc"\n');
    expect(out).toContain('fail  configuration: PARLEY_RATE_LIMIT_IP_PER_MINUTE must be a whole number >= 0, got "lots"\n');
    expect(out).toContain('fail  configuration: PARLEY_LIVE_HEARTBEAT must be durations like 30s, 2m or 500ms, got "15"\n');
    expect(out).toContain('warn  configuration: PARLEY_RATE_LIMIT_IP_PER_MINUT is not a variable Parley reads (misspelt?); it is ignored\n');
    expect(out).not.toMatch(/^ok {4}configuration/m);
    // The database is still checked with the rest of the configuration.
    expect(out).toMatch(/^ok {4}database: .* answers; every migration is applied$/m);
    expect(out).toContain(`fail  redis: redis://127.0.0.1:${closedPort}: connect ECONNREFUSED 127.0.0.1:${closedPort}\n`);
    expect(out).toMatch(new RegExp(`^fail  smtp: smtp://127\\.0\\.0\\.1:${closedPort}/?: .*ECONNREFUSED`, 'm'));
    // Private addresses not allowed: 127.0.0.1 is refused too.
    expect(out).toMatch(/^warn  webhooks: 2 enabled endpoints on 2 hosts: 2 cannot be delivered to; a receiver on your own network needs PARLEY_WEBHOOK_ALLOW_PRIVATE=true$/m);
    expect(out).toMatch(/^warn  webhooks: 127\.0\.0\.1 is or resolves to 127\.0\.0\.1, a loopback, private, link-local or multicast address \(site site_[\w-]+\): its deliveries fail$/m);
    expect(out).toMatch(/^5 failed, 4 warnings$/m);
    expect(code).toBe(1);
  });

  it('does not take the shell variables npm start prints, or the test suite\'s, for misspelt settings', async () => {
    const { code, out } = await doctor({
      DATABASE_URL: database.url,
      PARLEY_URL: 'http://127.0.0.1:3000',
      PARLEY_KEY: 'sk_0123456789',
      PARLEY_SETUP_LINK: 'http://127.0.0.1:3000/dashboard/setup#token=setup_0123',
      PARLEY_TEST_DATABASE_URL: 'postgres://127.0.0.1:5432/test',
      PARLEY_SKIP_BROWSER: '1',
      PARLEY_RATE_LIMIT_IP_PER_MINUT: '100',
    });
    expect(out).not.toMatch(/PARLEY_(URL|KEY|SETUP_LINK|TEST_DATABASE_URL|SKIP_BROWSER) is not a variable/);
    expect(out).toContain('warn  configuration: PARLEY_RATE_LIMIT_IP_PER_MINUT is not a variable Parley reads (misspelt?); it is ignored\n');
    expect(out).toMatch(/^ok {4}configuration: 1 variable set, every value valid$/m);
    expect(code).toBe(0);
  });

  it('fails on a wrong SMTP password, saying what the server answered', async () => {
    const { code, out } = await doctor({ DATABASE_URL: database.url, PARLEY_SMTP_URL: `smtp://parley:wrong@127.0.0.1:${smtpPort}`, PARLEY_MAIL_FROM: 'comments@example.com' });
    expect(out).toMatch(new RegExp(`^fail  smtp: smtp://parley:\\*\\*\\*@127\\.0\\.0\\.1:${smtpPort}/?: .*Invalid username or password`, 'm'));
    expect(code).toBe(1);
  });

  it('fails on a database it cannot open, and warns of one not migrated yet', async () => {
    const notADatabase = join(mkdtempSync(join(tmpdir(), 'parley-doctor-')), 'not-a-database.db');
    writeFileSync(notADatabase, 'this is not a SQLite database, but long enough to have a header of one '.repeat(20));
    const sqlite = await doctor({ DATABASE_URL: `sqlite:${notADatabase}` });
    expect(sqlite.out).toMatch(/^fail  database: SQLite at .*not-a-database\.db: file is not a database$/m);
    expect(sqlite.code).toBe(1);

    const postgres = await doctor({ DATABASE_URL: `postgres://parley:secret@127.0.0.1:${closedPort}/parley` });
    expect(postgres.out).toMatch(new RegExp(`^fail  database: PostgreSQL at postgres://parley:\\*\\*\\*@127\\.0\\.0\\.1:${closedPort}/parley: .*ECONNREFUSED`, 'm'));
    expect(postgres.code).toBe(1);

    const empty = await freshDatabaseUrl();
    try {
      const fresh = await doctor({ DATABASE_URL: empty.url });
      if (dialectName === 'sqlite') expect(fresh.out).toMatch(/^warn  database: SQLite at .*: no database file yet; parley serve or parley migrate creates it$/m);
      else expect(fresh.out).toMatch(/^warn  database: PostgreSQL at .* answers; \d+ migrations not applied yet \(0001_initial, .*\): parley serve applies them on start, or run parley migrate$/m);
      expect(fresh.code).toBe(0);
    } finally {
      await empty.drop();
    }
  });
});
