import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectName, freshDatabaseUrl, startParley, type FreshDatabase } from '../../test/helper.ts';
import { loadConfig } from '../config.ts';
import { connect, type Db } from './connect.ts';

// The PostgreSQL connection settings, as an operator sets them in the environment.
describe.skipIf(dialectName !== 'postgres')('PostgreSQL connection settings', () => {
  let database: FreshDatabase;
  const opened: Db[] = [];
  const open = (env: Record<string, string>) => {
    const db = connect(loadConfig({ ...env, DATABASE_URL: database.url }));
    opened.push(db);
    return db;
  };

  beforeAll(async () => {
    database = await freshDatabaseUrl();
  });
  afterAll(async () => {
    await Promise.all(opened.map((db) => db.close()));
    await database.drop();
  });

  it('PARLEY_DATABASE_STATEMENT_TIMEOUT_MS cancels a statement that runs longer', async () => {
    const db = open({ PARLEY_DATABASE_STATEMENT_TIMEOUT_MS: '200' });
    const started = Date.now();
    await expect(sql`select pg_sleep(5)`.execute(db.kysely)).rejects.toMatchObject({ code: '57014' });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('PARLEY_DATABASE_STATEMENT_TIMEOUT_MS=0 lets statements run as long as they need', async () => {
    const db = open({ PARLEY_DATABASE_STATEMENT_TIMEOUT_MS: '0' });
    const { rows } = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(db.kysely);
    expect(rows[0].statement_timeout).toBe('0');
  });

  it("turns PostgreSQL's JIT compilation off, which cost seconds on queries that run in milliseconds", async () => {
    const db = open({});
    const { rows } = await sql<{ jit: string }>`show jit`.execute(db.kysely);
    expect(rows[0].jit).toBe('off');
  });

  it('PARLEY_DATABASE_POOL_SIZE bounds the connections one instance opens', async () => {
    const db = open({ PARLEY_DATABASE_POOL_SIZE: '2' });
    const sessions = await Promise.all(
      Array.from({ length: 6 }, () => sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.1)`.execute(db.kysely)),
    );
    expect(new Set(sessions.map((result) => result.rows[0].pid)).size).toBe(2);
  });

  it('survives the server closing an idle connection, and opens a new one', async () => {
    const db = open({});
    const first = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db.kysely);
    const admin = open({});
    await sql`select pg_terminate_backend(${first.rows[0].pid})`.execute(admin.kysely);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const next = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db.kysely);
    expect(next.rows[0].pid).not.toBe(first.rows[0].pid);
  });

  it('PARLEY_DATABASE_SSL=true never falls back to an unencrypted connection', async () => {
    // The test server runs without TLS (or with a certificate nobody trusts): no connection at all.
    const db = open({ PARLEY_DATABASE_SSL: 'true' });
    await expect(sql`select 1`.execute(db.kysely)).rejects.toThrow(/SSL|certificate/i);
  });
});

// Statements kept prepared on PostgreSQL (db/kept-statements.ts) meet a migration made by another
// instance, as in a rolling deploy.
describe.skipIf(dialectName !== 'postgres')('statements kept prepared on PostgreSQL', () => {
  it('keep answering after another instance adds a column or changes the type of one', async () => {
    const database = await freshDatabaseUrl();
    // One connection, so the statements prepared before the change are the ones asked to run after it.
    const parley = await startParley({ DATABASE_URL: database.url, PARLEY_DATABASE_POOL_SIZE: '1' });
    const admin = connect(loadConfig({ DATABASE_URL: database.url }));
    try {
      const site = await parley.newSite();
      const thread = 'https://example.com/kept';
      const created = await parley.request('POST', '/v1/comments', { token: site.api_key, body: { thread_url: thread, site_id: site.site_id, content: 'before' } });
      await parley.request('POST', '/v1/comments', { token: site.api_key, body: { thread_url: thread, site_id: site.site_id, content: 'a reply', parent_id: created.body.id } });
      const readOne = () => parley.request('GET', `/v1/comments/${created.body.id}`, { token: site.api_key });
      const readList = () => parley.request('GET', `/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent(thread)}`, { token: site.api_key });
      const [one, list] = [await readOne(), await readList()];
      expect([one.status, list.status]).toEqual([200, 200]);

      await sql`alter table comments add column kept_statement_probe text`.execute(admin.kysely);
      // A column the list's kept statements return (not one a trigger names: PostgreSQL refuses those).
      await sql`alter table comments alter column root_id type varchar`.execute(admin.kysely);

      for (let i = 0; i < 3; i++) {
        expect(await readOne()).toMatchObject({ status: 200, body: one.body });
        expect(await readList()).toMatchObject({ status: 200, body: list.body });
      }
    } finally {
      await admin.close();
      await parley.close();
      await database.drop();
    }
  });
});

// An import's large transactions would hold their journals (a page of each index per comment
// written) in the process's memory: SQLite keeps them in temporary files for a bulk connection.
describe.skipIf(dialectName !== 'sqlite')('SQLite temporary storage', () => {
  const tempStore = async (bulkWrites: boolean) => {
    const database = await freshDatabaseUrl();
    const db = connect({ ...loadConfig({ DATABASE_URL: database.url }), bulkWrites });
    try {
      const { rows } = await sql<{ temp_store: number }>`pragma temp_store`.execute(db.kysely);
      return rows[0].temp_store;
    } finally {
      await db.close();
      await database.drop();
    }
  };

  it('is memory for a server, and files (SQLite keeps their first 64 KiB in memory) for bulk writes', async () => {
    expect(await tempStore(false)).toBe(2);
    expect(await tempStore(true)).toBe(0);
  });
});

describe.skipIf(dialectName !== 'sqlite')('SQLite statements', () => {
  let database: FreshDatabase;
  let db: Db;

  beforeAll(async () => {
    database = await freshDatabaseUrl();
    db = connect(loadConfig({ DATABASE_URL: database.url }));
  });
  afterAll(async () => {
    await db.close();
    await database.drop();
  });

  it('writes a LIMIT into the SQL (bound, SQLite would prepare the statement again on every run) and still limits', async () => {
    const query = db.kysely.selectFrom(sql<{ n: number }>`(select 1 as n union all select 2 union all select 3)`.as('t')).select('n').limit(2);
    expect(query.compile().sql).toMatch(/limit 2$/);
    expect(await query.execute()).toHaveLength(2);
  });
});
