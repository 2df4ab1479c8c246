import { describe, expect, it } from 'vitest';
import { freshDatabaseUrl, pageUrl } from '../../test/helper.ts';
import { seedDatabase, spawnServer, withDatabase } from '../../test/hardening/child-server.ts';
import { endedAfterEach, startMailbox } from '../../test/mailbox.ts';
import { sleep } from '../../test/receiver.ts';
import { newId } from '../ids.ts';

const { servers, boxes, databases } = endedAfterEach();

describe('digests and several instances', () => {
  it("sends a reader's due digest once when two instances' mail workers both find it due", async () => {
    const box = await startMailbox();
    boxes.push(box);
    const database = await freshDatabaseUrl();
    databases.push(database);
    const site = await seedDatabase(database.url);
    const env = { PARLEY_SMTP_URL: box.url, PARLEY_MAIL_FROM: 'comments@example.com', PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: '0', PARLEY_RATE_LIMIT_IP_PER_MINUTE: '0' };
    for (let i = 0; i < 2; i++) servers.push(await spawnServer(database.url, env));
    const posted = await fetch(`${servers[0].url}/v1/comments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ site_id: site.site_id, thread_url: pageUrl(), content: 'Darjeeling, first flush.', author_name: 'Gus' }),
    });
    expect(posted.status).toBe(201);
    const commentId = ((await posted.json()) as { id: string }).id;

    await withDatabase(database.url, async (db) => {
      const now = new Date().toISOString();
      const userId = newId('usr');
      await db.kysely
        .insertInto('site_users')
        .values({ id: userId, site_id: site.site_id, external_id: 'bob', name: 'Bob', avatar_url: null, first_comment_at: null, created_at: now, profile_issued_at: null, email: 'bob@example.com', mail_frequency: 'daily' })
        .execute();
      // A guest posting without the widget's form token is held by the spam checks: made public here, as a moderator's approval would.
      await db.kysely.updateTable('comments').set({ status: 'published', moderation_status: null }).where('id', '=', commentId).execute();
      const { thread_id } = await db.kysely.selectFrom('comments').select('thread_id').where('id', '=', commentId).executeTakeFirstOrThrow();
      await db.kysely
        .insertInto('notifications')
        .values({ id: newId('ntf'), site_id: site.site_id, user_id: userId, kind: 'followed_thread', comment_id: commentId, thread_id, cause: `followed_thread:${commentId}`, created_at: now, read_at: null, mailed_at: null })
        .execute();
      // Due now on both instances' next poll.
      await db.kysely.updateTable('site_users').set({ digest_due_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', userId).execute();
    });
    const [digest] = await box.waitFor(1);
    expect(digest.subject).toContain('Your daily summary');
    expect(digest.text).toContain('Darjeeling, first flush.');
    // Several polls of both workers later, still the one mail.
    await sleep(4_000);
    expect(box.mails).toHaveLength(1);
    const queued = await withDatabase(database.url, (db) => db.kysely.selectFrom('mail_outbox').select('state').where('kind', '=', 'digest').execute());
    expect(queued).toEqual([{ state: 'sent' }]);
  }, 120_000);
});
