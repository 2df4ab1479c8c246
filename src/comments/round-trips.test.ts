import type { LogEvent } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectName, pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { resolveCaller, type Caller } from '../auth/caller.ts';
import { connect, type Db } from '../db/connect.ts';
import { createComment } from './service.ts';

// A thread's comments wait for each other on its row from the statement that counts a comment into
// it until COMMIT: every round trip in between is time the next comment waits. And every statement
// is a round trip that costs both processes time: a reader's comment takes five.
describe.skipIf(dialectName !== 'postgres')('a new comment on PostgreSQL', () => {
  let parley: TestParley;
  let db: Db;
  let reader: Caller;
  let token: string;
  let site: { site_id: string; api_key: string };
  const statements: string[] = [];

  beforeAll(async () => {
    parley = await startParley();
    site = await parley.newSite();
    db = connect(parley.config, (event: LogEvent) => {
      if (event.level === 'query') statements.push(event.query.sql);
    });
    token = await parley.signIn(site.api_key, site.site_id, { id: 'reader', name: 'Reader' });
    reader = await resolveCaller(db, token, '127.0.0.1');
  });
  afterAll(async () => {
    await db.close();
    await parley.close();
  });

  it("locks its thread's row in its last statement before COMMIT, which also queues the followers' fan-out and records its event", async () => {
    const url = pageUrl();
    await createComment(db, reader, { thread_url: url, site_id: site.site_id, content: 'first' });
    // The reader's next request knows they have commented (user.created is recorded once).
    const again = await resolveCaller(db, token, '127.0.0.1');
    statements.length = 0;
    const second = await createComment(db, again, { thread_url: url, site_id: site.site_id, content: 'second' });
    expect(statements).toHaveLength(5);
    const [begin, siteRead, standing, write, commit] = statements;
    expect([begin, commit]).toEqual(['begin', 'commit']);
    expect(siteRead).toMatch(/pg_advisory_xact_lock.* from "sites"/);
    expect(standing).toMatch(/from bans[\s\S]*author_counts[\s\S]*threads[\s\S]*classifier_models/);
    expect(write).toMatch(/insert into "notification_jobs"[\s\S]*insert into "events"[\s\S]*update threads/);
    const jobs = await db.kysely.selectFrom('notification_jobs').select(['kind', 'state']).where('comment_id', '=', second.id).execute();
    expect(jobs).toEqual([{ kind: 'published', state: 'pending' }]);
    const events = await db.kysely.selectFrom('events').select('data').where('type', '=', 'comment.created').where('site_id', '=', site.site_id).execute();
    expect(events.map((event) => JSON.parse(event.data).comment.content)).toEqual(['first', 'second']);
  });
});
