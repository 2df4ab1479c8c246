import type { LogEvent } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectName, pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { resolveCaller, type Caller } from '../auth/caller.ts';
import { connect, type Db } from '../db/connect.ts';
import { createComment } from './service.ts';

// A thread's comments wait for each other on its row from the statement that counts a comment into
// it until COMMIT: every round trip in between is time the next comment waits.
describe.skipIf(dialectName !== 'postgres')('a new comment on PostgreSQL', () => {
  let parley: TestParley;
  let db: Db;
  let reader: Caller;
  let site: { site_id: string; api_key: string };
  const statements: string[] = [];

  beforeAll(async () => {
    parley = await startParley();
    site = await parley.newSite();
    db = connect(parley.config, (event: LogEvent) => {
      if (event.level === 'query') statements.push(event.query.sql);
    });
    reader = await resolveCaller(db, await parley.signIn(site.api_key, site.site_id, { id: 'reader', name: 'Reader' }), '127.0.0.1');
  });
  afterAll(async () => {
    await db.close();
    await parley.close();
  });

  it("locks its thread's row in its last statement before COMMIT, which also queues the followers' fan-out", async () => {
    const url = pageUrl();
    await createComment(db, reader, { thread_url: url, site_id: site.site_id, content: 'first' });
    statements.length = 0;
    const second = await createComment(db, reader, { thread_url: url, site_id: site.site_id, content: 'second' });
    const locking = statements.findIndex((text) => /update threads/.test(text));
    expect(statements.slice(locking + 1)).toEqual(['commit']);
    expect(statements[locking]).toMatch(/insert into "notification_jobs"/);
    const jobs = await db.kysely.selectFrom('notification_jobs').select(['kind', 'state']).where('comment_id', '=', second.id).execute();
    expect(jobs).toEqual([{ kind: 'published', state: 'pending' }]);
  });
});
