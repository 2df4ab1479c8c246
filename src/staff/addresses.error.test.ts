import { afterEach, describe, expect, it, vi } from 'vitest';
import { parleysPerTest } from '../../test/helper.ts';
import { mailingParleysPerTest } from '../../test/mailbox.ts';
import { sleep } from '../../test/receiver.ts';
import { addStaff, joinThroughInvite, signInStaff, staffEmail } from '../../test/staff.ts';

const start = parleysPerTest();
const mailingParley = mailingParleysPerTest(start);
// Registered after the mailbox's hook, so it runs before it (hooks after a test run last first):
// the mailbox's SMTP conversation ends on the real clock.
afterEach(() => {
  vi.useRealTimers();
});

const RESEND = '/api/auth/verify-email/resend';

describe('asking for a new confirmation link', () => {
  it('is refused (409) once the address is confirmed, and nothing is mailed', async () => {
    const { parley, box } = await mailingParley();
    const site = await parley.newSite({});
    const session = await signInStaff(parley, (await addStaff(parley, site.account_id, 'owner')).email);
    const refused = await parley.request('POST', RESEND, { headers: session.headers });
    expect(refused.status).toBe(409);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ code: 'conflict', detail: 'Your address is already confirmed' });
    await sleep(1500);
    expect(box.mails).toHaveLength(0);
  });

  it('is refused (409) with the reason when the server sends no mail', async () => {
    const parley = await start();
    const email = staffEmail('no-mail');
    await joinThroughInvite(parley, email);
    const session = await signInStaff(parley, email);
    const refused = await parley.request('POST', RESEND, { headers: session.headers });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'conflict', detail: expect.stringContaining('This server sends no mail') });
  });

  it('is limited per person: one a minute, five an hour (429 with Retry-After)', async () => {
    // Mail written to the log: the clock moves on below, faster than an SMTP conversation's timers.
    const parley = await start({ PARLEY_SMTP_URL: 'log:', PARLEY_MAIL_FROM: 'comments@example.com' });
    const email = staffEmail('impatient');
    await joinThroughInvite(parley, email);
    const session = await signInStaff(parley, email);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const ask = () => parley.request('POST', RESEND, { headers: session.headers });

    expect((await ask()).status).toBe(202);
    const again = await ask();
    expect(again.status).toBe(429);
    expect(again.body).toMatchObject({ code: 'rate_limited', detail: expect.stringMatching(/^A new confirmation link was mailed less than a minute ago; ask again in \d+ s$/) });
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(again.headers.get('retry-after'))).toBeLessThanOrEqual(60);

    for (let asked = 2; asked <= 5; asked++) {
      vi.setSystemTime(Date.now() + 61_000);
      expect((await ask()).status).toBe(202);
    }
    vi.setSystemTime(Date.now() + 61_000);
    const sixth = await ask();
    expect(sixth.status).toBe(429);
    expect(sixth.body.detail).toMatch(/^At most 5 new confirmation links are mailed in an hour; ask again in \d+ s$/);
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(60);
    // The join's mail and five new links: the refused requests queued none.
    const queued = await parley.app.db.kysely.selectFrom('mail_outbox').select('kind').where('recipient', '=', email).execute();
    expect(queued).toEqual(Array(6).fill({ kind: 'verify' }));
  });
});
