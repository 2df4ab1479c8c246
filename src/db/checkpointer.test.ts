import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { dialectName, freshDatabaseUrl, pageUrl, startParley } from '../../test/helper.ts';
import { loadConfig } from '../config.ts';
import { connect, sqlitePath } from './connect.ts';

/** Comments in the database file alone, as a copy of it without its WAL shows them; null while a copy is torn. */
function commentsInFileAlone(databaseFile: string): number | null {
  const dir = mkdtempSync(join(tmpdir(), 'parley-file-alone-'));
  const copy = join(dir, 'copy.db');
  copyFileSync(databaseFile, copy);
  try {
    const database = new SQLite(copy, { readonly: true });
    try {
      return (database.prepare('select count(*) as n from comments').get() as { n: number }).n;
    } finally {
      database.close();
    }
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The WAL is copied into the database file on a thread of its own (checkpointer.ts).
describe.skipIf(dialectName !== 'sqlite')('SQLite checkpoints', () => {
  it('bring the database file up to date soon after each commit while the server runs', async () => {
    const database = await freshDatabaseUrl();
    const parley = await startParley({ DATABASE_URL: database.url });
    try {
      const site = await parley.newSite();
      for (let i = 0; i < 30; i++) {
        const body = { thread_url: pageUrl(), site_id: site.site_id, content: `comment ${i}` };
        expect((await parley.request('POST', '/v1/comments', { token: site.api_key, body })).status).toBe(201);
      }
      // Far fewer pages than the writer's own checkpoint waits for: only the thread copies them.
      let found: number | null = null;
      for (const deadline = Date.now() + 10_000; found !== 30 && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        found = commentsInFileAlone(sqlitePath(database.url));
      }
      expect(found).toBe(30);
    } finally {
      await parley.close();
      await database.drop();
    }
  });

  it('keep the WAL bounded while transactions follow each other without a pause', async () => {
    const database = await freshDatabaseUrl();
    const db = connect(loadConfig({ DATABASE_URL: database.url }));
    try {
      await sql`create table notes (id integer primary key, body text not null)`.execute(db.kysely);
      const body = 'x'.repeat(2_000);
      let walPeak = 0;
      // 50 writers, each beginning its next transaction as soon as the last one has committed: 80 MB
      // written in all. The thread's copy is always overtaken by the next commit, so the WAL starts
      // over only through the writer's own checkpoint.
      const writer = async () => {
        for (let i = 0; i < 800; i++) {
          await db.kysely.transaction().execute((trx) => sql`insert into notes (body) values (${body})`.execute(trx));
          if (i % 20 === 0) walPeak = Math.max(walPeak, statSync(`${sqlitePath(database.url)}-wal`).size);
        }
      };
      await Promise.all(Array.from({ length: 50 }, writer));
      // The writer checkpoints past 16 MB, unless the thread holds the checkpoint then: it tries again
      // at its next commit. Without the writer's checkpoint, the WAL grew to 86 MB.
      expect(walPeak).toBeLessThan(40 * 1024 * 1024);
    } finally {
      await db.close();
      await database.drop();
    }
  });
});
