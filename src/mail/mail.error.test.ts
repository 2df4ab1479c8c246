import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { linkIn, pathOf, startMailbox, type Mailbox } from '../../test/mailbox.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { mailWords } from './words.ts';

/** Parley's English words of the mails and their pages. */
const S = mailWords('en');

let parley: TestParley;
let box: Mailbox;
let site: { site_id: string; api_key: string };
beforeAll(async () => {
  box = await startMailbox();
  parley = await startParley({ PARLEY_SMTP_URL: box.url, PARLEY_MAIL_FROM: 'comments@example.com' });
  site = await parley.newSite();
});
afterAll(async () => {
  await parley.close();
  await box.close();
});
afterEach(() => vi.useRealTimers());

const guestComment = (extra: Record<string, unknown>) =>
  parley.request('POST', '/v1/comments', { body: { site_id: site.site_id, thread_url: pageUrl(), content: 'hello', ...extra } });

describe('mail requests that cannot be done', () => {
  it('asks a guest who wants replies mailed for an address, and refuses one that is not an address', async () => {
    const missing = await guestComment({ notify_replies: true });
    expect(missing.status).toBe(400);
    expect(missing.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(missing.body.errors).toEqual([{ path: 'body/email', message: expect.stringContaining('notify_replies') }]);
    for (const email of ['not an address', 'a@b', '<a@example.com>', 'x'.repeat(250) + '@example.com']) {
      const refused = await guestComment({ notify_replies: true, email });
      expect(refused.status, email).toBe(400);
      expect(refused.body.errors[0].path).toBe('body/email');
    }
  });

  it('answers 404 to an unknown, used or expired confirmation link, on the page and on the button', async () => {
    for (const token of ['mc_unknown', 'nothing-like-a-token']) {
      expect((await parley.request('GET', `/v1/mail/confirm?token=${token}`)).status).toBe(404);
      expect((await parley.request('POST', `/v1/mail/confirm?token=${token}`)).status).toBe(404);
    }
    const before = box.mails.length;
    expect((await guestComment({ notify_replies: true, email: 'late@example.com' })).status).toBe(201);
    const [mail] = (await box.waitFor(before + 1)).slice(before);
    const link = pathOf(linkIn(mail, S('confirmAction')));
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 24 * 3600_000 + 1000 });
    const expired = await parley.request('POST', link);
    expect(expired.status).toBe(404);
    expect(expired.body.detail).toBe('This confirmation link is unknown, used or expired');
  });

  it('answers 404 to an unsubscribe link whose signature does not match what it names, and 400 to one missing a part', async () => {
    const before = box.mails.length;
    await guestComment({ notify_replies: true, email: 'signed@example.com' });
    await box.waitFor(before + 1);
    const address = (await parley.app.db.kysely.selectFrom('mail_addresses').select('id').where('email', '=', 'signed@example.com').executeTakeFirstOrThrow()).id;
    const forged = await parley.request('POST', `/v1/mail/unsubscribe?address=${address}&scope=all&target=&sig=AAAA`);
    expect(forged.status).toBe(404);
    expect((await parley.request('GET', `/v1/mail/unsubscribe?address=nope&scope=all&target=&sig=AAAA`)).status).toBe(404);
    expect((await parley.request('GET', `/v1/mail/unsubscribe?address=${address}&scope=everything&target=&sig=AAAA`)).status).toBe(400);
    expect((await parley.request('GET', `/v1/mail/unsubscribe?address=${address}&scope=all`)).status).toBe(400);
  });

  it('keeps reader mail settings for sessions: a key is refused (403), no credential 401', async () => {
    expect((await parley.request('GET', '/v1/sessions/current/mail', { token: site.api_key })).status).toBe(403);
    expect((await parley.request('PUT', '/v1/sessions/current/mail', { body: { notify_replies: true } })).status).toBe(401);
    const reader = await parley.signIn(site.api_key, site.site_id, { id: 'r', name: 'R' });
    expect((await parley.request('PUT', '/v1/sessions/current/mail', { token: reader, body: { notify_replies: 'yes' } })).status).toBe(400);
  });

  it('answers a body of unknown fields only with the settings unchanged', async () => {
    const reader = await parley.signIn(site.api_key, site.site_id, { id: 'unknown-fields', name: 'U' });
    const before = await parley.request('GET', '/v1/sessions/current/mail', { token: reader });
    const answer = await parley.request('PUT', '/v1/sessions/current/mail', { token: reader, body: { a: { a: 1 } } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(before.body);
  });
});

describe('a signed-in reader whose default is on and whose address is unknown', () => {
  it('posts as usual, mailed nothing; asking in the request itself needs the address', async () => {
    const reader = await parley.signIn(site.api_key, site.site_id, { id: 'no-address', name: 'Nora' });
    await parley.request('PUT', '/v1/sessions/current/mail', { token: reader, body: { notify_replies: true } });
    const thread = pageUrl();
    const posted = await parley.request('POST', '/v1/comments', { token: reader, body: { site_id: site.site_id, thread_url: thread, content: 'by default' } });
    expect(posted.status).toBe(201);
    expect(await parley.app.db.kysely.selectFrom('mail_subscriptions').select('comment_id').where('comment_id', '=', posted.body.id).execute()).toEqual([]);
    const asked = await parley.request('POST', '/v1/comments', { token: reader, body: { site_id: site.site_id, thread_url: thread, content: 'asked', notify_replies: true } });
    expect(asked.status).toBe(400);
  });
});

describe('a mail the SMTP server keeps refusing', () => {
  it('stays queued for its retries, and /metrics counts it', async () => {
    const refusing = await startMailbox(() => 'refuse');
    const token = 'mail-metrics-token-0123456789';
    const server = await startParley({ PARLEY_SMTP_URL: refusing.url, PARLEY_MAIL_FROM: 'comments@example.com', PARLEY_MAIL_RETRY_DELAYS: '1h', PARLEY_METRICS_TOKEN: token });
    try {
      const own = await server.newSite();
      await server.request('POST', '/v1/comments', { body: { site_id: own.site_id, thread_url: pageUrl(), content: 'hi', notify_replies: true, email: 'queued@example.com' } });
      await refusing.waitForOffers(1);
      const metrics = await server.request('GET', '/metrics', { token });
      expect(metrics.body).toMatch(/^parley_mail_queue_depth 1$/m);
    } finally {
      await server.close();
      await refusing.close();
    }
  });
});

describe('mail configuration', () => {
  it('is off without an SMTP URL, and stops the start with a reason when a setting is wrong', () => {
    expect(loadConfig({}).mail).toBeNull();
    expect(loadConfig({ PARLEY_MAIL_FROM: 'a@example.com' }).mail).toBeNull();
    expect(loadConfig({ PARLEY_SMTP_URL: 'smtp://127.0.0.1:25', PARLEY_MAIL_FROM: 'a@example.com', PORT: '8080' }).mail).toEqual({
      smtpUrl: 'smtp://127.0.0.1:25',
      from: 'a@example.com',
      publicUrl: 'http://127.0.0.1:8080',
      retryDelaysMs: [60_000, 300_000, 1_800_000, 7_200_000],
      timeoutMs: 30_000,
    });
    const wrong: Record<string, string>[] = [
      { PARLEY_SMTP_URL: 'http://smtp.example.com', PARLEY_MAIL_FROM: 'a@example.com' },
      { PARLEY_SMTP_URL: 'smtp://smtp.example.com' },
      { PARLEY_SMTP_URL: 'smtp://smtp.example.com', PARLEY_MAIL_FROM: 'Parley' },
      { PARLEY_SMTP_URL: 'smtp://smtp.example.com', PARLEY_MAIL_FROM: 'a@example.com', PARLEY_PUBLIC_URL: 'https://example.com/comments' },
      { PARLEY_SMTP_URL: 'smtp://smtp.example.com', PARLEY_MAIL_FROM: 'a@example.com', PARLEY_MAIL_TIMEOUT: '0s' },
    ];
    for (const env of wrong) expect(() => loadConfig(env), JSON.stringify(env)).toThrow(ConfigError);
  });
});

describe('without PARLEY_SMTP_URL', () => {
  it('takes "email me replies" and does nothing with it: no address kept, the settings say mail is off', async () => {
    const plain = await startParley();
    try {
      const own = await plain.newSite();
      const posted = await plain.request('POST', '/v1/comments', { body: { site_id: own.site_id, thread_url: pageUrl(), content: 'hi', notify_replies: true, email: 'kept@example.com' } });
      expect(posted.status).toBe(201);
      expect(await plain.app.db.kysely.selectFrom('mail_addresses').selectAll().execute()).toEqual([]);
      const reader = await plain.signIn(own.api_key, own.site_id, { id: 'r', name: 'R' });
      expect((await plain.request('GET', '/v1/sessions/current/mail', { token: reader })).body).toEqual({ notify_replies: false, email: null, mail_enabled: false, frequency: 'instant', time_zone: null });
    } finally {
      await plain.close();
    }
  });
});
