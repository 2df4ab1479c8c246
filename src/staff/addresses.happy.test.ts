import { afterEach, describe, expect, it } from 'vitest';
import { parleysPerTest } from '../../test/helper.ts';
import { linkIn, mailingEnv, pathOf, startMailbox, type Mailbox } from '../../test/mailbox.ts';
import { joinThroughInvite, signInStaff, staffEmail } from '../../test/staff.ts';
import { mailWords } from '../mail/words.ts';

/** Parley's English words of the mails and their pages. */
const S = mailWords('en');

const start = parleysPerTest();
const boxes: Mailbox[] = [];
afterEach(async () => {
  await Promise.all(boxes.splice(0).map((box) => box.close()));
});

const confirm = (parley: { request: (method: string, path: string, options: object) => Promise<{ status: number }> }, path: string) =>
  parley.request('POST', path, { raw: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });

describe('a new confirmation link', () => {
  it('is mailed to a signed-in person whose address is unconfirmed; the earlier link stops working and the new one confirms', async () => {
    const box = await startMailbox();
    boxes.push(box);
    const parley = await start(mailingEnv(box));
    const email = staffEmail('lost-link');
    await joinThroughInvite(parley, email);
    const [lost] = await box.waitFor(1);
    const session = await signInStaff(parley, email);

    const resent = await parley.request('POST', '/api/auth/verify-email/resend', { headers: session.headers });
    expect(resent.status).toBe(202);
    expect(resent.body).toEqual({ email, expires_at: expect.any(String) });
    const days = (Date.parse(resent.body.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThanOrEqual(7);

    const [, fresh] = await box.waitFor(2);
    expect(fresh.to).toMatchObject({ text: email });
    expect(fresh.subject).toBe(S('verifySubject'));
    expect((await confirm(parley, pathOf(linkIn(lost, S('verifyAction'))))).status).toBe(404);
    expect((await confirm(parley, pathOf(linkIn(fresh, S('verifyAction'))))).status).toBe(200);
    expect((await parley.request('GET', '/api/auth/me', { headers: session.headers })).body.staff.email_verified).toBe(true);
  });
});
