import { existsSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityProvider } from '../readers/me/readers.fixture.ts';
import { signInReader } from '../readers/sign-in.ts';
import { findSite } from '../sites/repository.ts';
import ENGLISH from './locales/en.json' with { type: 'json' };
import { startMailbox, type Mailbox } from '../../test/mailbox.ts';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { compileCatalog } from '../i18n/compile.ts';
import { TRANSLATED_LOCALES } from '../i18n/messages.ts';
import DIALOG_ENGLISH from './locales/dialogs/en.json' with { type: 'json' };

let parley: TestParley;
let site: { site_id: string; api_key: string };

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
});
afterAll(() => parley.close());

const GZIP_BUDGET = 20 * 1024;
/** embed.js and the largest locale file, each gzipped as served: what a reader in another language fetches. */
const WITH_LOCALE_BUDGET = 24 * 1024;

/** The folder of the locale files, as embed.js names it. */
async function localesPath(): Promise<string> {
  const script = await (await fetch(`${parley.url}/embed.js`)).text();
  const path = /embed\/locales\/[0-9a-f]{16}/.exec(script)?.[0];
  expect(path).toBeDefined();
  return `/${path}`;
}

/** The locales with a message file of the widget or its dialogs at this moment (translators add them). */
const WRITTEN = TRANSLATED_LOCALES.filter((locale) => existsSync(`src/widget/locales/${locale}.json`) || existsSync(`src/widget/locales/dialogs/${locale}.json`));

describe('embed.js', () => {
  it('serves the bundled widget with caching headers and stays within 20 kB gzipped', async () => {
    const response = await fetch(`${parley.url}/embed.js`, { headers: { 'accept-encoding': 'identity' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/javascript/);
    expect(response.headers.get('cache-control')).toMatch(/max-age=\d+/);
    expect(response.headers.get('etag')).toMatch(/^"[^"]+"$/);
    const code = Buffer.from(await response.arrayBuffer());
    expect(code.toString()).toContain('parley-comments');
    const gzipped = gzipSync(code, { level: 9 }).length;
    expect(gzipped).toBeLessThanOrEqual(GZIP_BUDGET);
  });

  it('answers a matching If-None-Match with 304 and sends gzip to clients that accept it', async () => {
    const first = await fetch(`${parley.url}/embed.js`);
    const etag = first.headers.get('etag')!;
    const again = await fetch(`${parley.url}/embed.js`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    const gzipped = await parley.request('GET', '/embed.js', { headers: { 'accept-encoding': 'gzip' } });
    expect(gzipped.headers.get('vary')).toBe('Accept-Encoding');
    expect(gzipped.headers.get('etag')).toBe(etag);
  });

  it('is not part of the API reference', async () => {
    const spec = await parley.request('GET', '/openapi.json');
    expect(Object.keys(spec.body.paths)).not.toContain('/embed.js');
    expect(Object.keys(spec.body.paths).filter((path) => path.startsWith('/embed'))).toEqual([]);
    expect(Object.keys(spec.body.paths)).not.toContain('/');
    expect(Object.keys(spec.body.paths)).toContain('/v1/widget');
  });
});

/** The element scripts, gzipped as served: an index page loads count.js alone. */
const ELEMENT_BUDGETS = { '/embed/count.js': 3 * 1024, '/embed/recent.js': 5 * 1024 };

describe('the element scripts', () => {
  it.each(Object.entries(ELEMENT_BUDGETS))('serve %s with caching headers, within its budget gzipped', async (path, budget) => {
    const response = await fetch(`${parley.url}${path}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/javascript/);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300, stale-while-revalidate=86400');
    const code = Buffer.from(await response.arrayBuffer());
    expect(gzipSync(code, { level: 9 }).length).toBeLessThanOrEqual(budget);
    const etag = response.headers.get('etag')!;
    expect((await fetch(`${parley.url}${path}`, { headers: { 'if-none-match': etag } })).status).toBe(304);
  });
});

describe('the locale files', () => {
  it.skipIf(WRITTEN.length === 0)("serve a locale's widget and dialog messages compiled in one file, cached for good, gzipped, to any origin", async () => {
    const locale = WRITTEN[0];
    const path = `${await localesPath()}/${locale}.json`;
    const response = await fetch(parley.url + path, { headers: { origin: 'https://blog.example.com' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const read = (file: string) => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {});
    const compiled = { ...compileCatalog(read(`src/widget/locales/${locale}.json`)), ...compileCatalog(read(`src/widget/locales/dialogs/${locale}.json`)) };
    expect(await response.json()).toEqual(compiled);
    const etag = response.headers.get('etag')!;
    expect((await fetch(parley.url + path, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const gzipped = await parley.request('GET', path, { headers: { 'accept-encoding': 'gzip' } });
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
  });

  it('answers 404 for English (in embed.js), a language without a file, another hash, or another name', async () => {
    const folder = await localesPath();
    const missing = TRANSLATED_LOCALES.find((locale) => !WRITTEN.includes(locale));
    const paths = [`${folder}/en.json`, '/embed/locales/0000000000000000/de.json', `${folder}/de.js`, ...(missing ? [`${folder}/${missing}.json`] : [])];
    for (const path of paths) expect((await fetch(parley.url + path)).status, path).toBe(404);
  });

  it(`keep embed.js and the largest of them within ${WITH_LOCALE_BUDGET / 1024} kB gzipped together`, async () => {
    const embed = gzipSync(Buffer.from(await (await fetch(`${parley.url}/embed.js`)).arrayBuffer()), { level: 9 }).length;
    const folder = await localesPath();
    const sizes = await Promise.all(WRITTEN.map(async (locale) => gzipSync(Buffer.from(await (await fetch(`${parley.url}${folder}/${locale}.json`)).arrayBuffer()), { level: 9 }).length));
    // Before any translation is written, English compiled as a locale file is, stands in for one.
    const stand = gzipSync(JSON.stringify({ ...compileCatalog(ENGLISH), ...compileCatalog(DIALOG_ENGLISH) }), { level: 9 }).length;
    const largest = Math.max(0, ...sizes) || stand;
    console.log(`embed.js ${embed} B + largest locale file ${largest} B gzipped (${WRITTEN.length} locale files)`);
    expect(embed + largest).toBeLessThanOrEqual(WITH_LOCALE_BUDGET);
  });
});

describe("the dialogs' module", () => {
  /** The path embed.js imports the sign-in and account dialogs from. */
  async function chunkPath(): Promise<string> {
    const script = await (await fetch(`${parley.url}/embed.js`)).text();
    const path = /embed\/account\.[0-9a-f]{16}\.js/.exec(script)?.[0];
    expect(path).toBeDefined();
    return `/${path}`;
  }

  it('is an ES module named by its hash, cached for good, that pages of other origins may import', async () => {
    const response = await fetch(parley.url + (await chunkPath()), { headers: { 'accept-encoding': 'identity', origin: 'https://blog.example.com' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/javascript/);
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(response.headers.get('etag')).toMatch(/^"[^"]+"$/);
    const code = await response.text();
    expect(code).toMatch(/\bexport\s*\{/);
    expect(code).toContain('Sign in to comment');
    // The widget lends it its helpers: no second copy of them, nor of the widget's words.
    expect(code).not.toContain('customElements');
    expect(code).not.toContain(ENGLISH.error_network);
    expect(gzipSync(code, { level: 9 }).length).toBeLessThanOrEqual(6 * 1024);
  });

  it('answers a matching If-None-Match with 304 and sends gzip to clients that accept it, with CORS headers on both', async () => {
    const path = await chunkPath();
    const first = await fetch(parley.url + path);
    const etag = first.headers.get('etag')!;
    const again = await fetch(parley.url + path, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('access-control-allow-origin')).toBe('*');
    const gzipped = await parley.request('GET', path, { headers: { 'accept-encoding': 'gzip' } });
    expect(gzipped.status).toBe(200);
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(gzipped.headers.get('vary')).toBe('Accept-Encoding');
    expect(gzipped.headers.get('etag')).toBe(etag);
    expect(gzipped.headers.get('access-control-allow-origin')).toBe('*');
  });

  it("is 404 under another hash: an earlier build's module is not this one", async () => {
    const response = await fetch(`${parley.url}/embed/account.0000000000000000.js`);
    expect(response.status).toBe(404);
  });
});

describe('the demo page', () => {
  it('embeds the widget on its own thread of the first site', async () => {
    const response = await fetch(`${parley.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain(`<parley-comments site-id="${site.site_id}" thread-url="${parley.url}/"`);
    expect(html).toContain('<script src="/embed.js" async></script>');
  });

  it("runs this server's script alone, in no frame, and sends no referrer (its URL may hold a session token)", async () => {
    const response = await fetch(`${parley.url}/?session_token=sess_x`);
    const csp = response.headers.get('content-security-policy');
    expect(csp?.split('; ')).toEqual(expect.arrayContaining(["default-src 'self'", "script-src 'self'", "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"]));
    expect(csp).not.toMatch(/https?:|\*|unsafe-eval/);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('passes a session token through as an attribute, escaped', async () => {
    const html = await (await fetch(`${parley.url}/?session_token=${encodeURIComponent('sess_"><script>x</script>')}`)).text();
    expect(html).toContain('session-token="sess_&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
    expect(html).not.toContain('<script>x</script>');
  });
});

describe('GET /v1/widget', () => {
  async function session(user: { id: string; name: string; moderator?: boolean }, siteId = site.site_id, key = site.api_key) {
    const minted = await parley.request('POST', '/v1/sessions', { token: key, body: { site_id: siteId, user } });
    expect(minted.status).toBe(201);
    return minted.body.token as string;
  }

  it("tells a guest the site's public settings, and that this server sends no mail", async () => {
    const response = await parley.request('GET', `/v1/widget?site_id=${site.site_id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      site: {
        id: site.site_id,
        name: 'Test site',
        allow_guests: true,
        reactions: ['funny', 'interesting', 'insightful'],
        live_updates: true,
        // What the comment form offers, and how long an author may edit (a new site's defaults).
        formatting: 'markdown',
        edit_window_seconds: 900,
        // The widget's language when neither the element nor the page names one Parley speaks.
        language: null,
        // Where a reader contests a moderator's decision: none set.
        contact: null,
      },
      viewer: { signed_in: false, name: null, moderator: false, user_id: null, avatar_url: null, own_account: false },
      // This site lists no domains: a sign-in would have no page of the site to come back to.
      sign_in: { email: false, providers: [], erase_grace_seconds: 7 * 24 * 3600 },
      mail: { enabled: false, address_known: false, notify_replies: false },
      // A guest has no notification bell.
      notifications: null,
      // What the widget sends back with a guest's comment (src/spam).
      form: { token: expect.stringMatching(/^ft1\.\d+\.[\w-]{43}$/), min_submit_seconds: 2, challenge: null },
      // The site's own words for the widget: none yet.
      strings: {},
    });
  });

  it("gives the site's own words for the language the widget asks for, else for the site's language, compiled, without its mails' words", async () => {
    const worded = await parley.newSite();
    const patch = {
      language: 'fr',
      strings: {
        de: { empty: 'Noch nichts hier.', newComments: '{count, plural, one {# neuer Kommentar} other {# neue Kommentare}}', claimHint: 'Deine Gastkommentare.' },
        fr: { empty: 'Rien encore.' },
        en: { confirmSubject: 'Please confirm for {site}' },
      },
    };
    const patched = await parley.request('PATCH', `/api/sites/${worded.site_id}`, { token: worded.api_key, body: patch });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const strings = (lang?: string) => parley.request('GET', `/v1/widget?site_id=${worded.site_id}${lang ? `&lang=${lang}` : ''}`).then((response) => response.body.strings);
    const german = await strings('de-AT');
    expect(german).toMatchObject({ empty: 'Noch nichts hier.', claimHint: 'Deine Gastkommentare.' });
    // A message with placeholders arrives as its syntax tree, which embed.js formats without a parser.
    expect(german.newComments).toEqual(compileCatalog({ x: patch.strings.de.newComments }).x);
    // A language Parley does not speak falls through to the site's.
    expect(await strings('tlh')).toEqual({ empty: 'Rien encore.' });
    expect(await strings()).toEqual({ empty: 'Rien encore.' });
    // Words for mails are the server's business.
    expect(await strings('en')).toEqual({});
  });

  it('tells a session who it is and whether it moderates', async () => {
    const reader = await session({ id: 'w-1', name: 'Reader' });
    const moderator = await session({ id: 'w-2', name: 'Mod', moderator: true });
    const viewer = (token: string) => parley.request('GET', `/v1/widget?site_id=${site.site_id}`, { token }).then((response) => response.body.viewer);
    // A site's own users (backend sessions, SSO) are not accounts the reader made: not theirs to rename or delete.
    expect(await viewer(reader)).toEqual({ signed_in: true, name: 'Reader', moderator: false, user_id: expect.stringMatching(/^usr_/), avatar_url: null, own_account: false });
    expect(await viewer(moderator)).toMatchObject({ signed_in: true, name: 'Mod', moderator: true, own_account: false });
    expect(await viewer(site.api_key)).toMatchObject({ signed_in: true, user_id: null, own_account: false });
  });

  it("treats another site's session as the public, and an unknown site as 404", async () => {
    const other = await parley.newSite({ allowGuests: false });
    const foreign = await session({ id: 'w-3', name: 'Elsewhere' }, other.site_id, other.api_key);
    const response = await parley.request('GET', `/v1/widget?site_id=${site.site_id}`, { token: foreign });
    expect(response.body.viewer).toEqual({ signed_in: false, name: null, moderator: false, user_id: null, avatar_url: null, own_account: false });
    expect(response.body.notifications).toBeNull();
    expect((await parley.request('GET', `/v1/widget?site_id=${other.site_id}`)).body.site.allow_guests).toBe(false);
    const missing = await parley.request('GET', '/v1/widget?site_id=site_nope');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('not_found');
  });
});

describe('GET /v1/widget: how readers sign in', () => {
  let mailbox: Mailbox;
  let mailing: TestParley;
  beforeAll(async () => {
    mailbox = await startMailbox();
    mailing = await startParley({ PARLEY_SMTP_URL: mailbox.url, PARLEY_MAIL_FROM: 'comments@example.com', PARLEY_ERASE_GRACE: '2d' });
  });
  afterAll(async () => {
    await mailing.close();
    await mailbox.close();
  });

  const signIn = (server: TestParley, siteId: string) => server.request('GET', `/v1/widget?site_id=${siteId}`).then((response) => response.body.sign_in);

  it("offers email codes where the server mails and the site lists its domains, and the site's providers by name", async () => {
    const blog = await mailing.newSite({ domains: ['blog.example.com'] });
    const gitlab = await identityProvider(mailing, blog.site_id, 'gitlab', 'GitLab');
    const github = await identityProvider(mailing, blog.site_id, 'github', 'GitHub');
    await identityProvider(mailing, (await mailing.newSite({ domains: ['other.example.com'] })).site_id, 'google', 'Google');
    expect(await signIn(mailing, blog.site_id)).toEqual({
      email: true,
      // Said before a reader confirms deleting their account.
      erase_grace_seconds: 2 * 24 * 3600,
      providers: [
        { id: github, name: 'GitHub', type: 'github' },
        { id: gitlab, name: 'GitLab', type: 'gitlab' },
      ],
    });
  });

  it('offers no email codes where the site turned them off or the server sends no mail', async () => {
    const quiet = await mailing.newSite({ domains: ['quiet.example.com'] });
    expect((await mailing.request('PATCH', `/api/sites/${quiet.site_id}`, { token: quiet.api_key, body: { email_sign_in: false } })).status).toBe(200);
    expect(await signIn(mailing, quiet.site_id)).toMatchObject({ email: false, providers: [] });
    const mailless = await parley.newSite({ domains: ['mailless.example.com'] });
    await identityProvider(parley, mailless.site_id, 'oidc', 'Example ID');
    expect(await signIn(parley, mailless.site_id)).toMatchObject({ email: false, providers: [{ id: expect.stringMatching(/^idp_/), name: 'Example ID', type: 'oidc' }] });
  });

  it('offers no way in on a site that lists no domains, not even its providers', async () => {
    const anywhere = await mailing.newSite();
    await identityProvider(mailing, anywhere.site_id, 'github', 'GitHub');
    expect(await signIn(mailing, anywhere.site_id)).toMatchObject({ email: false, providers: [] });
  });

  it("tells a reader who signed in by themselves that the account is theirs, with the provider's picture", async () => {
    const blog = await mailing.newSite({ domains: ['pictures.example.com'] });
    const site = (await findSite(mailing.app.db.kysely, blog.site_id))!;
    const { token, user } = await signInReader(mailing.app.db, { ...site, providerAvatars: true }, {
      provider: 'idp_test',
      subject: 'ada',
      email: null,
      emailVerified: false,
      name: 'Ada',
      pictureUrl: 'https://avatars.example.com/ada.png',
    });
    const viewer = (await mailing.request('GET', `/v1/widget?site_id=${blog.site_id}`, { token })).body.viewer;
    expect(viewer).toEqual({ signed_in: true, name: 'Ada', moderator: false, user_id: user.id, avatar_url: 'https://avatars.example.com/ada.png', own_account: true });
  });
});

describe('user_is_author', () => {
  it('marks the comments the caller wrote, for the caller only', async () => {
    const minted = await parley.request('POST', '/v1/sessions', { token: site.api_key, body: { site_id: site.site_id, user: { id: 'author-1', name: 'Author' } } });
    const token = minted.body.token;
    const thread = pageUrl();
    const created = await parley.request('POST', '/v1/comments', { token, body: { site_id: site.site_id, thread_url: thread, content: 'mine' } });
    expect(created.body.user_is_author).toBe(true);
    const list = (t?: string) => parley.request('GET', `/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent(thread)}`, { token: t });
    expect((await list(token)).body.comments[0].user_is_author).toBe(true);
    expect((await list()).body.comments[0].user_is_author).toBe(false);
    expect((await list(site.api_key)).body.comments[0].user_is_author).toBe(false);
  });
});
