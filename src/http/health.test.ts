import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readyAt, seedDatabase, spawnServer, type ChildServer } from '../../test/hardening/child-server.ts';
import { dialectName, freshDatabaseUrl, TEST_DATABASE_URL, parleysPerTest, startParley, type FreshDatabase, type TestParley } from '../../test/helper.ts';
import { sqlitePath } from '../db/connect.ts';

let parley: TestParley;
beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

describe('health endpoints', () => {
  it('answers /healthz while the process is up and /readyz while the database answers', async () => {
    expect(await parley.request('GET', '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await parley.request('GET', '/readyz')).toMatchObject({ status: 200, body: { status: 'ready' } });
  });
});

describe('readiness', () => {
  const start = parleysPerTest();

  it('fails while the database connection is closed', async () => {
    const cut = await start();
    await cut.app.db.close();
    expect(await cut.request('GET', '/readyz')).toMatchObject({ status: 503, body: { status: 'database unreachable' } });
    expect(await cut.request('GET', '/healthz')).toMatchObject({ status: 200 });
  });
});

/** `parley serve` processes, each on a fresh database. */
describe('readiness of parley serve', () => {
  let database: FreshDatabase;
  let server: ChildServer | undefined;
  afterEach(async () => {
    if (server && server.process.exitCode === null) {
      server.process.kill('SIGKILL');
      await server.exited;
    }
    server = undefined;
    await database.drop();
  });
  const get = async (path: string) => {
    const response = await fetch(server!.url + path);
    return { status: response.status, headers: response.headers, body: await response.json() };
  };

  /**
   * Takes the lock that a migrating instance holds, from another connection: SQLite's write lock,
   * or on PostgreSQL the advisory lock Kysely's migrator takes (its id is Kysely's constant).
   */
  async function holdMigrationLock(url: string): Promise<() => Promise<void>> {
    if (dialectName === 'sqlite') {
      const other = new SQLite(sqlitePath(url));
      other.pragma('journal_mode = WAL');
      other.exec('begin immediate');
      return async () => {
        other.exec('rollback');
        other.close();
      };
    }
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    await other.query('select pg_advisory_lock(3853314791062309107)');
    return async () => {
      await other.query('select pg_advisory_unlock(3853314791062309107)');
      await other.end();
    };
  }

  it('answers /readyz 503 "migrating" while another process holds the migration lock, and 200 once it has migrated', async () => {
    database = await freshDatabaseUrl();
    const release = await holdMigrationLock(database.url);
    try {
      server = await spawnServer(database.url, {}, { untilReady: false });
      expect(await get('/readyz')).toMatchObject({ status: 503, body: { status: 'migrating' } });
      expect(await get('/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
      const list = await get('/v1/comments?site_id=site_x&thread_url=https%3A%2F%2Fblog.example.com%2Fa');
      expect(list).toMatchObject({ status: 503, body: { code: 'service_unavailable', detail: expect.stringContaining('migrations') } });
      expect(list.headers.get('retry-after')).toBe('5');
      // Still waiting a second later: the lock, not a slow start, holds it.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(await get('/readyz')).toMatchObject({ status: 503, body: { status: 'migrating' } });
    } finally {
      await release();
    }
    await readyAt(server.url, 10_000);
    expect(await get('/readyz')).toMatchObject({ status: 200, body: { status: 'ready' } });
    expect(server.output()).toContain('database migrated; ready');
  });

  it('answers /readyz 503 "shutting down" from SIGTERM on, still serving requests during PARLEY_SHUTDOWN_DELAY, then exits 0', async () => {
    database = await freshDatabaseUrl();
    const site = await seedDatabase(database.url);
    server = await spawnServer(database.url, { PARLEY_SHUTDOWN_DELAY: '2s' });
    expect((await get('/readyz')).status).toBe(200);
    const signalled = Date.now();
    server.process.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await get('/readyz')).toMatchObject({ status: 503, body: { status: 'shutting down' } });
    expect(await get('/healthz')).toMatchObject({ status: 200 });
    expect(await get(`/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent('https://blog.example.com/a')}`)).toMatchObject({ status: 200 });
    expect(await server.exited).toBe(0);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(2000);
  });

  it.skipIf(dialectName !== 'postgres')('answers /readyz 503 "database unreachable" while PostgreSQL refuses connections, and 200 once it accepts them again', async () => {
    database = await freshDatabaseUrl();
    await seedDatabase(database.url);
    server = await spawnServer(database.url);
    const name = new URL(database.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      await admin.query(`alter database ${name} allow_connections false`);
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
      expect(await get('/readyz')).toMatchObject({ status: 503, body: { status: 'database unreachable' } });
      expect(await get('/healthz')).toMatchObject({ status: 200 });
      await admin.query(`alter database ${name} allow_connections true`);
      expect(await get('/readyz')).toMatchObject({ status: 200, body: { status: 'ready' } });
    } finally {
      await admin.query(`alter database ${name} allow_connections true`);
      await admin.end();
    }
  });
});
