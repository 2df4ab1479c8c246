import { describe, expect, it } from 'vitest';
import { parleysPerTest } from '../../../test/helper.ts';
import { mailingParleysPerTest } from '../../../test/mailbox.ts';
import { mailedCode, READER_PAGE, signInSite, verify } from '../../../test/sign-in-codes.ts';
import { mailWords } from '../../mail/words.ts';

/** Parley's English words of the mails and their pages. */
const S = mailWords('en');

const mailingParley = mailingParleysPerTest(parleysPerTest());

describe('email sign-in', () => {
  it('mails a code that signs a new reader in, with the name they gave', async () => {
    const { parley, box } = await mailingParley();
    const site = await signInSite(parley);
    const asked = await parley.request('POST', '/v1/auth/email', { body: { site_id: site.site_id, email: 'Reader@Example.com' } });
    expect(asked.status).toBe(202);
    expect(asked.body).toEqual({ sent: true, expires_in: 600 });

    const [mail] = await box.waitFor(1);
    expect(mail.to).toMatchObject({ value: [{ address: 'reader@example.com' }] });
    expect(mail.subject).toBe(S('signInSubject', { site: 'Tea Blog' }));
    expect(mail.from?.value[0]).toEqual({ name: 'Tea Blog', address: 'comments@example.com' });
    expect(mail.text).toContain(S('signInExpiry', { minutes: 10 }));
    expect(mail.text).toContain(S('signInIgnore'));
    const code = /^ {4}(\d{6})$/m.exec(mail.text ?? '')![1];
    expect(mail.html).toContain(`>${code}</p>`);
    expect(mail.html).toContain('https://comments.example.com/v1/auth/email/link?token=sil_');

    const signedIn = await verify(parley, site.site_id, 'reader@example.com', code, 'Rea Der');
    expect(signedIn.status).toBe(201);
    expect(signedIn.body).toMatchObject({ token: expect.stringMatching(/^sess_/), user: { name: 'Rea Der', moderator: false, external_id: expect.stringMatching(/^reader:usr_/) } });
    const widget = await parley.request('GET', `/v1/widget?site_id=${site.site_id}`, { token: signedIn.body.token });
    expect(widget.body.viewer).toMatchObject({ signed_in: true, name: 'Rea Der' });
  });

  it('signs the same reader in again as the same user, whatever the case of the address', async () => {
    const { parley, box } = await mailingParley();
    const site = await signInSite(parley);
    const first = await verify(parley, site.site_id, 'again@example.com', (await mailedCode(parley, box, site.site_id, 'again@example.com')).code);
    const second = await verify(parley, site.site_id, 'AGAIN@example.com', (await mailedCode(parley, box, site.site_id, 'Again@Example.COM')).code, 'Other Name');
    expect(second.status).toBe(201);
    expect(second.body.user.id).toBe(first.body.user.id);
    expect(second.body.user.name).toBe('Reader');
    expect(second.body.token).not.toBe(first.body.token);
  });

  it("takes the code with a space in the middle, as people copy it", async () => {
    const { parley, box } = await mailingParley();
    const site = await signInSite(parley);
    const { code } = await mailedCode(parley, box, site.site_id, 'spaced@example.com');
    expect((await verify(parley, site.site_id, 'spaced@example.com', ` ${code.slice(0, 3)} ${code.slice(3)} `)).status).toBe(201);
  });

  it("signs in through the mail's link: a page with a button, whose post goes back to the page with the session in the fragment", async () => {
    const { parley, box } = await mailingParley();
    const site = await signInSite(parley);
    const { link } = await mailedCode(parley, box, site.site_id, 'linked@example.com', READER_PAGE);

    const page = await fetch(parley.url + link);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('content-security-policy')).toContain(`form-action 'self' https://blog.example.com`);
    const html = await page.text();
    expect(html).toContain('<form method="post">');
    expect(html).toContain(S('pageSignInButton'));
    // Opening the page (as a mail scanner does) spent nothing: it can be opened again.
    expect((await fetch(parley.url + link)).status).toBe(200);

    const posted = await fetch(parley.url + link, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(posted.status).toBe(303);
    const target = new URL(posted.headers.get('location')!);
    expect(target.origin + target.pathname).toBe(READER_PAGE);
    const token = /^#parley_session=(sess_\w+)$/.exec(target.hash)![1];
    const widget = await parley.request('GET', `/v1/widget?site_id=${site.site_id}`, { token });
    expect(widget.body.viewer).toMatchObject({ signed_in: true, name: 'Reader' });

    // Once: the link, and its code with it.
    const again = await fetch(parley.url + link, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(again.status).toBe(404);
    expect(again.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await fetch(parley.url + link)).status).toBe(404);
  });

  it('says to type the code when the link has no page to go back to, and spends nothing', async () => {
    const { parley, box } = await mailingParley();
    const site = await signInSite(parley);
    const { code, link } = await mailedCode(parley, box, site.site_id, 'nowhere@example.com');
    for (const method of ['GET', 'POST']) {
      const page = await fetch(parley.url + link, { method, redirect: 'manual', ...(method === 'POST' && { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' }) });
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('type the code from the same mail');
      expect(html).not.toContain('<form');
    }
    expect((await verify(parley, site.site_id, 'nowhere@example.com', code)).status).toBe(201);
  });
});
