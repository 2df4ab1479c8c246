import { describe, expect, it } from 'vitest';
import { freshDatabaseUrl, pageUrl } from '../../test/helper.ts';
import { seedDatabase, spawnServer, withDatabase, type ChildServer } from '../../test/hardening/child-server.ts';
import { endedAfterEach, startMailbox } from '../../test/mailbox.ts';
import { sleep } from '../../test/receiver.ts';
import { insertMembership, insertStaff } from '../staff/repository.ts';
import { MODERATION_MAIL_INTERVAL_MS } from './moderators.ts';

const { servers, boxes, databases } = endedAfterEach();

describe('moderation mails and several instances', () => {
  it("sends a wave's first mail once when two instances share the database and both workers claim its mails", async () => {
    const box = await startMailbox();
    boxes.push(box);
    const database = await freshDatabaseUrl();
    databases.push(database);
    const site = await seedDatabase(database.url);
    const moderator = 'mo@example.com';
    await withDatabase(database.url, async (db) => {
      await db.kysely.updateTable('sites').set({ moderation_mode: 'all' }).where('id', '=', site.site_id).execute();
      const staff = await insertStaff(db.kysely, { email: moderator, name: 'Mo', passwordHash: 'unused', verified: true });
      await db.kysely.updateTable('staff').set({ moderation_mail: 'pending' }).where('id', '=', staff.id).execute();
      await insertMembership(db.kysely, staff.id, site.account_id, 'moderator', null);
    });
    const env = {
      PARLEY_SMTP_URL: box.url,
      PARLEY_MAIL_FROM: 'comments@example.com',
      PARLEY_MAIL_TIMEOUT: '2s',
      // One client posts the whole wave.
      PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: '0',
      PARLEY_RATE_LIMIT_IP_PER_MINUTE: '0',
    };
    for (let i = 0; i < 2; i++) servers.push(await spawnServer(database.url, env));

    const url = pageUrl();
    const post = (server: ChildServer, n: number) =>
      fetch(`${server.url}/v1/comments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ site_id: site.site_id, thread_url: url, content: `Held comment ${n}`, author_name: `Guest ${n}` }),
      });
    // Queued while the first mail is on its way, the later ones are due at once as well.
    const posted = await Promise.all(Array.from({ length: 20 }, (_, n) => post(servers[n % 2], n)));
    expect(posted.map((response) => response.status)).toEqual(Array(20).fill(201));
    await box.waitFor(1);
    // Past a claimed mail's lease (2 × 2 s + 5 s), after which a mail that waited for the one under way is looked at again.
    await sleep(14_000);
    expect(box.mails).toHaveLength(1);

    const rows = await withDatabase(database.url, (db) => db.kysely.selectFrom('mail_outbox').select(['state', 'sent_at', 'next_attempt_at']).where('recipient', '=', moderator).execute());
    expect(rows).toHaveLength(20);
    const sent = rows.filter((row) => row.state === 'sent');
    const sentAt = sent[0].sent_at!;
    expect(sent.every((row) => row.sent_at === sentAt)).toBe(true);
    const intervalEnd = new Date(Date.parse(sentAt) + MODERATION_MAIL_INTERVAL_MS).toISOString();
    // The rest wait for the interval's end, to go together then.
    for (const row of rows.filter((row) => row.state !== 'sent')) expect(row).toMatchObject({ state: 'pending', next_attempt_at: intervalEnd });
    expect(box.mails[0].subject).toContain(sent.length === 1 ? 'A comment waits' : `${sent.length} comments wait`);
  }, 60_000);
});
