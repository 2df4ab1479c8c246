import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { seedDatabase, spawnServer, type ChildServer } from '../../test/hardening/child-server.ts';
import { dialectName, freshDatabaseUrl, type FreshDatabase } from '../../test/helper.ts';
import { postgresUrl, sqlitePath } from '../db/connect.ts';

let database: FreshDatabase | undefined;
let server: ChildServer | undefined;
afterEach(async () => {
  server?.process.kill('SIGKILL');
  await server?.exited;
  await database?.drop();
  server = database = undefined;
});

/**
 * Holds a lock that the server's next statement on `comments` must wait for, from another
 * connection, until `release` is called: PostgreSQL's wait ends at the statement time-out, SQLite's
 * at busy_timeout (5 s).
 */
async function lockComments(databaseUrl: string): Promise<() => Promise<void>> {
  if (dialectName === 'postgres') {
    const client = new pg.Client({ connectionString: postgresUrl(databaseUrl) });
    await client.connect();
    await client.query('begin');
    await client.query('lock table comments in access exclusive mode');
    return async () => {
      await client.query('rollback');
      await client.end();
    };
  }
  const sqlite = new SQLite(sqlitePath(databaseUrl));
  sqlite.exec('begin immediate');
  return async () => {
    sqlite.exec('rollback');
    sqlite.close();
  };
}

it('a statement the database gives up on answers 503 problem+json with Retry-After, and is logged', async () => {
  database = await freshDatabaseUrl();
  const seeded = await seedDatabase(database.url);
  server = await spawnServer(database.url, { PARLEY_DATABASE_STATEMENT_TIMEOUT_MS: '300', PARLEY_RATE_LIMIT_KEY_PER_MINUTE: '0' });
  const post = () =>
    fetch(`${server!.url}/v1/comments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${seeded.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ site_id: seeded.site_id, thread_url: 'https://busy.example.com/', content: 'while locked' }),
    });

  const release = await lockComments(database.url);
  let busy: Response;
  try {
    busy = await post();
  } finally {
    await release();
  }
  expect(busy.status).toBe(503);
  expect(busy.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(busy.headers.get('retry-after')).toBe('5');
  expect(await busy.json()).toMatchObject({ status: 503, code: 'service_unavailable', title: 'Service unavailable' });
  await expect.poll(() => server!.output()).toMatch(/"level":40,.*"msg":"database too busy to answer \(statement time-out or lock wait\); answered 503"/);
  expect(server.output()).not.toMatch(/unhandled error/);

  expect((await post()).status).toBe(201);
});
