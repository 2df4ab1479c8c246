import { existsSync } from 'node:fs';
import type { ParsedMail } from 'mailparser';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pageUrl, parleysPerTest, type TestParley } from '../../test/helper.ts';
import { linkIn, mailingParleysPerTest, pathOf } from '../../test/mailbox.ts';
import { READER_PAGE, signInMail, signInSite } from '../../test/sign-in-codes.ts';
import { sleep } from '../../test/receiver.ts';
import { addStaff } from '../../test/staff.ts';
import { escapeHtml } from '../formatting/escape.ts';
import { readCatalog } from '../i18n/compile.ts';
import { formatMessage } from '../i18n/messages.ts';
import { mailWords, type MailKey, type MailValues } from './words.ts';

const mailingParley = mailingParleysPerTest(parleysPerTest());
// Registered after the mailbox's hook, so it runs before it: the SMTP conversation ends on the real clock.
afterEach(() => {
  vi.useRealTimers();
});

const SETTLE_MS = 2_500;
const S = mailWords('en');

/** A translation's file, read now (translators add them beside en.json); the tests of a missing one are skipped. */
const file = (locale: string) => `src/mail/locales/${locale}.json`;
const missing = (locale: string) => !existsSync(file(locale));
const translated = (locale: string) => (key: MailKey, values?: MailValues) => formatMessage(locale, readCatalog(file(locale))[key], values);
for (const locale of ['de', 'ru', 'fr']) {
  if (missing(locale)) console.warn(`${file(locale)} is not written yet: the tests of mails in that language are skipped`);
}

/** A thread of the "Tea Blog", with a signed-in reader (Bob) and a guest who posts in the language `language` asks for. */
async function thread(parley: TestParley) {
  const site = await parley.newSite({ siteName: 'Tea Blog' });
  const bob = await parley.signIn(site.api_key, site.site_id, { id: 'bob', name: 'Bob' });
  const url = pageUrl();
  const post = async (body: Record<string, unknown>, options: { token?: string; language?: string } = {}) => {
    const form = options.token ? {} : await parley.guestForm(site.site_id);
    const headers = options.language ? { 'accept-language': options.language } : undefined;
    const response = await parley.request('POST', '/v1/comments', { token: options.token, headers, body: { site_id: site.site_id, thread_url: url, ...form, ...body } });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body as { id: string };
  };
  return { site, bob, url, post };
}

/** A guest asks for replies in `language`; the confirmation mail, found by its link's label in `say`, is followed. */
async function guestAsking(parley: TestParley, box: { waitFor(n: number): Promise<ParsedMail[]> }, language: string, say: (key: MailKey, values?: MailValues) => string) {
  const { bob, url, post } = await thread(parley);
  const comment = await post({ content: 'Which tea?', author_name: 'Gina', notify_replies: true, email: 'gina@example.com' }, { language });
  const [confirm] = await box.waitFor(1);
  expect((await parley.request('POST', pathOf(linkIn(confirm, say('confirmAction'))))).status).toBe(200);
  return { bob, url, post, comment, confirm };
}

describe('mails in the reader’s language', () => {
  it.skipIf(missing('de'))('sends a reader who wrote with Accept-Language de-DE the confirmation and the reply mail in German', async () => {
    const de = translated('de');
    const { parley, box } = await mailingParley();
    const { bob, url, post, comment, confirm } = await guestAsking(parley, box, 'de-DE,de;q=0.9,en;q=0.5', de);
    expect(confirm.subject).toBe(de('confirmSubject', { site: 'Tea Blog' }));
    expect(confirm.text).toContain(de('confirmIntro', { site: 'Tea Blog' }));
    expect(confirm.html).toContain('<html lang="de" dir="ltr">');
    const stored = await parley.app.db.kysely.selectFrom('mail_addresses').select('language').executeTakeFirstOrThrow();
    expect(stored.language).toBe('de');

    // The reply comes from someone else's request, in English: the mail speaks the address's language.
    await post({ content: 'Oolong.', parent_id: comment.id }, { token: bob, language: 'en' });
    const [, reply] = await box.waitFor(2);
    expect(reply.subject).toBe(de('replySubject', { count: 1, page: url }));
    expect(reply.text).toContain(de('replyBy', { name: 'Bob' }));
    expect(reply.text).toContain(`${de('unsubscribeThread')}: `);
  }, 30_000);

  it.skipIf(missing('ru'))('writes the subject of three replies with the Russian plural form "few"', async () => {
    const ru = translated('ru');
    const { parley, box } = await mailingParley();
    const { bob, url, post, comment } = await guestAsking(parley, box, 'ru', ru);
    await post({ content: 'first', parent_id: comment.id }, { token: bob });
    const [, first] = await box.waitFor(2);
    expect(first.subject).toBe(ru('replySubject', { count: 1, page: url }));
    // Three more within the ten minutes roll into one mail.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    for (const content of ['second', 'third', 'fourth']) await post({ content, parent_id: comment.id }, { token: bob });
    vi.setSystemTime(Date.now() + 10 * 60_000);
    const [, , rolled] = await box.waitFor(3);
    // 3 is of CLDR's "few" in Russian (5 would be "many"): the translation's branch for it.
    expect(new Intl.PluralRules('ru').select(3)).toBe('few');
    expect(rolled.subject).toBe(ru('replySubject', { count: 3, page: url }));
  }, 30_000);

  it.skipIf(missing('de'))('mails the sign-in code in the language of the request that asked for it', async () => {
    const de = translated('de');
    const { parley, box } = await mailingParley();
    const site = await signInSite(parley);
    const asked = await parley.request('POST', '/v1/auth/email', { headers: { 'accept-language': 'de' }, body: { site_id: site.site_id, email: 'leser@example.com', return_to: READER_PAGE } });
    expect(asked.status).toBe(202);
    const [mail] = await box.waitFor(1);
    expect(mail.subject).toBe(de('signInSubject', { site: 'Tea Blog' }));
    expect(mail.text).toContain(de('signInExpiry', { minutes: 10 }));
    // Its link's page: the reader's browser asks for German too.
    const link = pathOf(linkIn(mail, de('signInAction')));
    const page = await parley.request('GET', link, { headers: { 'accept-language': 'de-AT' } });
    expect(page.body).toContain('<html lang="de" dir="ltr">');
    expect(page.body).toContain(escapeHtml(de('pageSignInButton')));
    // Signing in with the link keeps the reader's language for their mention mails.
    expect((await fetch(parley.url + link, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'de' }, body: '' })).status).toBe(303);
    expect((await parley.app.db.kysely.selectFrom('site_users').select('language').executeTakeFirstOrThrow()).language).toBe('de');
  }, 30_000);

  it('mails the sign-in code in English to a request of a language Parley does not speak, on a site without one', async () => {
    const { parley, box } = await mailingParley();
    const site = await signInSite(parley);
    await parley.request('POST', '/v1/auth/email', { headers: { 'accept-language': 'tlh' }, body: { site_id: site.site_id, email: 'klingon@example.com' } });
    const [mail] = await box.waitFor(1);
    expect(mail.subject).toBe(S('signInSubject', { site: 'Tea Blog' }));
    expect(signInMail(mail).code).toMatch(/^\d{6}$/);
  }, 30_000);

  it.skipIf(missing('fr'))('mails a staff member who chose French the moderation mail in French', async () => {
    const fr = translated('fr');
    const { parley, box } = await mailingParley();
    const site = await parley.newSite({ siteName: 'Tea Blog', moderation: 'all' });
    const staff = await addStaff(parley, site.account_id, 'moderator');
    await parley.app.db.kysely.updateTable('staff').set({ moderation_mail: 'pending', language: 'fr' }).where('id', '=', staff.id).execute();
    const held = await parley.request('POST', '/v1/comments', { body: { site_id: site.site_id, thread_url: pageUrl(), content: 'Approuvez-moi', author_name: 'Gus', ...(await parley.guestForm(site.site_id)) } });
    expect(held.body.status).toBe('pending');
    const [mail] = await box.waitFor(1);
    expect(mail.subject).toBe(fr('moderationSubjectPending', { site: 'Tea Blog', pending: 1 }));
    expect(mail.text).toContain(fr('moderationPendingHeading', { count: 1 }));
    expect(mail.text).toContain(`${fr('moderationOpen')}: `);
    expect(mail.html).toContain('<html lang="fr" dir="ltr">');
  }, 30_000);
});

describe('mail pages in the reader’s language', () => {
  it('gives an address given in Arabic a right-to-left mail, and pages in its language whatever the browser asks', async () => {
    const { parley, box } = await mailingParley();
    const { post } = await thread(parley);
    await post({ content: 'أي شاي؟', author_name: 'Gina', notify_replies: true, email: 'gina@example.com' }, { language: 'ar' });
    const [confirm] = await box.waitFor(1);
    expect(confirm.html).toContain('<html lang="ar" dir="rtl"><body dir="rtl"');
    const ar = mailWords('ar');
    const link = pathOf(linkIn(confirm, ar('confirmAction')));
    for (const browser of [undefined, 'de-DE']) {
      const page = await parley.request('GET', link, { headers: browser ? { 'accept-language': browser } : undefined });
      expect(page.body).toContain('<html lang="ar" dir="rtl">');
      expect(page.body).toContain(escapeHtml(ar('pageConfirmAsk')));
    }
    const done = await parley.request('POST', link);
    expect(done.body).toContain('<html lang="ar" dir="rtl">');
    expect(done.body).toContain(escapeHtml(ar('pageConfirmDone')));
  }, 30_000);

  it("speaks the browser's language on a page whose record has none, else the site's, else English", async () => {
    const { parley, box } = await mailingParley();
    const site = await signInSite(parley);
    await parley.request('POST', '/v1/auth/email', { body: { site_id: site.site_id, email: 'reader@example.com', return_to: READER_PAGE } });
    const link = signInMail((await box.waitFor(1))[0]).link;
    const langOf = async (browser?: string) => /<html lang="([^"]+)"/.exec((await parley.request('GET', link, { headers: browser ? { 'accept-language': browser } : undefined })).body)![1];
    expect(await langOf('he-IL')).toBe('he');
    expect(await langOf()).toBe('en');
    await parley.app.db.kysely.updateTable('sites').set({ language: 'fa' }).where('id', '=', site.site_id).execute();
    expect(await langOf('tlh')).toBe('fa');
    expect(await langOf('ja')).toBe('ja');
  }, 30_000);
});

describe("a site's own words", () => {
  it('replace the subject of its mails, in the language they are given for', async () => {
    const { parley, box } = await mailingParley();
    const { site, post } = await thread(parley);
    const strings = { en: { confirmSubject: 'One click to get answers from {site}' }, de: { confirmSubject: 'Ein Klick für Antworten von {site}' } };
    expect((await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { strings } })).status).toBe(200);
    await post({ content: 'Hello', author_name: 'Ed', notify_replies: true, email: 'ed@example.com' });
    await post({ content: 'Hallo', author_name: 'Gina', notify_replies: true, email: 'gina@example.com' }, { language: 'de' });
    const mails = await box.waitFor(2);
    const to = (address: string) => mails.find((mail) => JSON.stringify(mail.to).includes(address))!;
    expect(to('ed@example.com').subject).toBe('One click to get answers from Tea Blog');
    expect(to('gina@example.com').subject).toBe('Ein Klick für Antworten von Tea Blog');
    // The rest of the mail is Parley's.
    expect(to('ed@example.com').text).toContain(S('confirmIgnore'));
    await sleep(SETTLE_MS);
    expect(box.mails).toHaveLength(2);
  }, 30_000);
});
