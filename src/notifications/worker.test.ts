import { describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL, freshDatabaseUrl, startParley, type TestParley } from '../../test/helper.ts';
import { nowIso } from '../clock.ts';
import { newId } from '../ids.ts';
import { readersSite } from './notifications.fixture.ts';
import { FOLLOWERS_PER_BATCH } from './recipients.ts';

/** `count` readers of the site following the page, made straight in the database (as many sign-ins would). */
async function followers(parley: TestParley, siteId: string, threadId: string, count: number): Promise<string[]> {
  const now = nowIso();
  const users = Array.from({ length: count }, (_, i) => ({ id: newId('usr'), site_id: siteId, external_id: `follower-${i}`, name: `Follower ${i}`, avatar_url: null, first_comment_at: null, created_at: now, profile_issued_at: null, email: null }));
  const db = parley.app.db.kysely;
  for (let start = 0; start < count; start += 500) {
    const slice = users.slice(start, start + 500);
    await db.insertInto('site_users').values(slice).execute();
    await db.insertInto('follows').values(slice.map((user) => ({ id: newId('fol'), site_id: siteId, user_id: user.id, thread_id: threadId, created_at: now }))).execute();
  }
  return users.map((user) => user.id).sort();
}

async function toldOf(parley: TestParley, commentId: string) {
  return parley.app.db.kysely.selectFrom('notifications').select(['user_id', 'kind']).where('comment_id', '=', commentId).execute();
}

async function threadOf(parley: TestParley, commentId: string): Promise<string> {
  return (await parley.app.db.kysely.selectFrom('comments').select('thread_id').where('id', '=', commentId).executeTakeFirstOrThrow()).thread_id;
}

describe('the notification worker', () => {
  it("resumes a dead worker's fan-out after its cursor once the lease has run out, telling every follower once", async () => {
    const parley = await startParley();
    try {
      const { site_id, reader, settled } = await readersSite(parley);
      const ann = await reader('Ann');
      const comment = await ann.post('Told to many');
      await settled();
      const threadId = await threadOf(parley, comment);
      const everyone = await followers(parley, site_id, threadId, 2 * FOLLOWERS_PER_BATCH + 200);
      // A worker died after its first batch's commit (the cursor), and ten readers past the cursor
      // have their notification already, as when a batch is done twice: none is told twice.
      const cursor = everyone[FOLLOWERS_PER_BATCH - 1];
      const now = nowIso();
      const early = everyone.slice(0, FOLLOWERS_PER_BATCH + 10);
      await parley.app.db.kysely
        .insertInto('notifications')
        .values(early.map((userId) => ({ id: newId('ntf'), site_id, user_id: userId, kind: 'followed_thread', comment_id: comment, thread_id: threadId, cause: `comment:${comment}`, created_at: now, read_at: null, mailed_at: null })))
        .execute();
      await parley.app.db.kysely
        .insertInto('notification_jobs')
        .values({ id: newId('njb'), site_id, kind: 'published', comment_id: comment, state: 'pending', cursor, next_attempt_at: now, lease_until: new Date(Date.now() - 1000).toISOString(), created_at: now })
        .execute();

      await settled();
      const told = await toldOf(parley, comment);
      expect(told).toHaveLength(everyone.length);
      expect(new Set(told.map((row) => row.user_id)).size).toBe(everyone.length);
    } finally {
      await parley.close();
    }
  }, 60_000);

  it.skipIf(!TEST_DATABASE_URL)('does a job once when two instances share the database (PostgreSQL)', async () => {
    const database = await freshDatabaseUrl();
    const first = await startParley({ DATABASE_URL: database.url });
    const second = await startParley({ DATABASE_URL: database.url });
    try {
      const { site_id, url, reader, settled } = await readersSite(first);
      const ann = await reader('Ann');
      const opening = await ann.post('The first comment makes the thread');
      await settled();
      const everyone = await followers(first, site_id, await threadOf(first, opening), 3 * FOLLOWERS_PER_BATCH);
      const announced: string[] = [];
      for (const instance of [first, second]) instance.app.db.changes.listenNotifications((_site, users) => announced.push(...users));

      // Queued on both instances at once: each worker is kicked by its own commit and claims what is due.
      const posted = await Promise.all([first, second].map((instance, i) => instance.request('POST', '/v1/comments', { token: ann.token, body: { site_id, thread_url: url, content: `Comment ${i}` } })));
      await settled();
      for (const { body } of posted) {
        const told = await toldOf(first, body.id);
        expect(told.map((row) => row.user_id).sort()).toEqual(everyone);
      }
      // Each reader heard of each comment once: no batch was done by both.
      expect(announced).toHaveLength(2 * everyone.length);
    } finally {
      await second.close();
      await first.close();
      await database.drop();
    }
  }, 60_000);
});
