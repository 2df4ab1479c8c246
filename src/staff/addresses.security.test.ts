import { describe, expect, it } from 'vitest';
import { parleysPerTest, type TestParley } from '../../test/helper.ts';
import { linkIn, pathOf, mailingParleysPerTest } from '../../test/mailbox.ts';
import { joinThroughInvite as joined, signInStaff, staffEmail } from '../../test/staff.ts';
import { mailWords } from '../mail/words.ts';

/** Parley's English words of the mails and their pages. */
const S = mailWords('en');

/**
 * A staff member's address is theirs once they prove it, by the link mailed to it: until then it
 * gets no mail and claims nothing, so an invite without an address cannot be accepted as someone
 * else's.
 */
const start = parleysPerTest();
const mailingParley = mailingParleysPerTest(start);


const member = async (parley: TestParley, accountId: string, headers: Record<string, string>, staffId: string) =>
  (await parley.request('GET', `/api/accounts/${accountId}/members`, { headers })).body.members.find((m: { id: string }) => m.id === staffId);

describe('staff addresses', () => {
  it('are confirmed by the link mailed to them on joining, through a page that asks before it confirms', async () => {
    const { parley, box } = await mailingParley();
    const email = staffEmail('newcomer');
    const { site, owner, accepted } = await joined(parley, email);
    expect(accepted.status).toBe(201);
    expect(accepted.body.staff).toMatchObject({ email, email_verified: false });
    const [mail] = await box.waitFor(1);
    expect(mail.to).toMatchObject({ text: email });
    expect(mail.subject).toBe(S('verifySubject'));
    const link = linkIn(mail, S('verifyAction'));
    expect(pathOf(link)).toMatch(/^\/api\/auth\/verify-email\?token=verify_/);
    // Opening the link (as a mail scanner would) confirms nothing; its button does.
    const asked = await parley.request('GET', pathOf(link));
    expect(asked.status).toBe(200);
    expect(asked.headers.get('content-type')).toMatch(/^text\/html/);
    expect((await member(parley, site.account_id, owner.headers, accepted.body.staff.id)).email_verified).toBe(false);
    const confirmed = await parley.request('POST', pathOf(link), { raw: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toContain(S('pageVerifyDone'));
    expect((await member(parley, site.account_id, owner.headers, accepted.body.staff.id)).email_verified).toBe(true);
    expect((await signInStaff(parley, email)).body.staff.email_verified).toBe(true);
    // Once.
    expect((await parley.request('POST', pathOf(link), { raw: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(404);
  });

  it('get no mail before they are confirmed: no reset link, no moderation mail', async () => {
    const { parley, box } = await mailingParley();
    const email = staffEmail('unconfirmed');
    const { site, owner, accepted } = await joined(parley, email);
    await box.waitFor(1);
    const session = await signInStaff(parley, email);
    expect((await parley.request('PUT', '/api/auth/me/mail', { headers: session.headers, body: { moderation_mail: 'all' } })).status).toBe(200);
    const reset = await parley.request('POST', `/api/accounts/${site.account_id}/members/${accepted.body.staff.id}/reset-link`, { headers: owner.headers });
    expect(reset.status).toBe(201);
    await parley.request('POST', '/v1/comments', { body: { site_id: site.site_id, thread_url: 'https://blog.example.com/a', content: 'held for a moderator' } });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(box.mails.map((mail) => mail.subject)).toEqual([S('verifySubject')]);
  });

  it('claim nothing unconfirmed: whoever proves the address later takes it over', async () => {
    const { parley, box } = await mailingParley();
    const email = staffEmail('claimed');
    // Someone invited without an address accepts as another person's address.
    const squat = await joined(parley, email, 'the squatter password');
    expect(squat.accepted.status).toBe(201);
    // The address's owner is invited elsewhere and accepts with a password of their own.
    const real = await joined(parley, email, 'the real owner password');
    expect(real.accepted.status).toBe(201);
    expect(real.accepted.body.staff.id).not.toBe(squat.accepted.body.staff.id);
    const mails = await box.waitFor(2);
    // Only the last link works: it is the address's owner who reads it.
    const [first, last] = mails.map((mail) => pathOf(linkIn(mail, S('verifyAction'))));
    const post = (path: string) => parley.request('POST', path, { raw: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect((await post(first)).status).toBe(404);
    expect((await post(last)).status).toBe(200);
    expect((await signInStaff(parley, email, 'the real owner password')).body.staff.id).toBe(real.accepted.body.staff.id);
    expect((await parley.request('POST', '/api/auth/login', { body: { email, password: 'the squatter password' } })).status).toBe(401);
    // The squatter's membership is left with an address that is no one's, shown unconfirmed.
    const left = await member(parley, squat.site.account_id, squat.owner.headers, squat.accepted.body.staff.id);
    expect(left).toMatchObject({ email_verified: false });
    expect(left.email).not.toBe(email);
    // A confirmed address is claimed: joining with it needs its password, as before.
    const third = await joined(parley, email, 'a guess');
    expect(third.accepted.status).toBe(401);
  });

  it('stay unconfirmed, and shown so, when the instance sends no mail', async () => {
    const parley = await start();
    const email = staffEmail('no-mail');
    const { site, owner, accepted } = await joined(parley, email);
    expect(accepted.status).toBe(201);
    expect(accepted.body.staff.email_verified).toBe(false);
    expect((await member(parley, site.account_id, owner.headers, accepted.body.staff.id)).email_verified).toBe(false);
    expect((await signInStaff(parley, email)).body.staff.email_verified).toBe(false);
  });
});

describe('a new confirmation link', () => {
  const RESEND = '/api/auth/verify-email/resend';

  it('goes only to the signed-in person, never for a key, a request without its CSRF token, or another origin', async () => {
    const { parley, box } = await mailingParley();
    const email = staffEmail('asking');
    const { site, accepted } = await joined(parley, email);
    await box.waitFor(1);
    const session = await signInStaff(parley, email);
    const refusals = [
      await parley.request('POST', RESEND),
      await parley.request('POST', RESEND, { token: site.api_key }),
      await parley.request('POST', RESEND, { headers: { cookie: session.cookie } }),
      await parley.request('POST', RESEND, { headers: { ...session.headers, origin: 'https://elsewhere.example' } }),
    ];
    expect(refusals.map((refusal) => refusal.status)).toEqual([401, 403, 403, 403]);
    // The person's own session, with its token: the link goes to their address, and the answer holds no token.
    const resent = await parley.request('POST', RESEND, { headers: session.headers });
    expect(resent.status).toBe(202);
    expect(JSON.stringify(resent.body)).not.toMatch(/verify_/);
    const mails = await box.waitFor(2);
    expect(mails.map((mail) => mail.to && 'text' in mail.to && mail.to.text)).toEqual([email, email]);
    expect(accepted.body.staff.email).toBe(email);
  });

  it('is not mailed to an address someone else took over', async () => {
    const { parley, box } = await mailingParley();
    const email = staffEmail('taken');
    const squat = await joined(parley, email, 'the squatter password');
    const squatter = await signInStaff(parley, email, 'the squatter password');
    await joined(parley, email, 'the real owner password');
    await box.waitFor(2);
    // Taking the address over ended the squatter's sessions.
    expect((await parley.request('POST', RESEND, { headers: squatter.headers })).status).toBe(401);
    // Signed in again under the address left to them, which is no one's: nothing to confirm.
    const again = await signInStaff(parley, `${squat.accepted.body.staff.id}@unconfirmed.invalid`, 'the squatter password');
    const refused = await parley.request('POST', RESEND, { headers: again.headers });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/^Your address was confirmed by someone else/);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(box.mails).toHaveLength(2);
  });
});
