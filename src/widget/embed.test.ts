import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { site_id: string; api_key: string };

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
});
afterAll(() => parley.close());

const GZIP_BUDGET = 20 * 1024;

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
    expect(Object.keys(spec.body.paths)).not.toContain('/');
    expect(Object.keys(spec.body.paths)).toContain('/v1/widget');
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
      site: { id: site.site_id, name: 'Test site', allow_guests: true, reactions: ['funny', 'interesting', 'insightful'], live_updates: true },
      viewer: { signed_in: false, name: null, moderator: false },
      mail: { enabled: false, address_known: false, notify_replies: false },
      // What the widget sends back with a guest's comment (src/spam).
      form: { token: expect.stringMatching(/^ft1\.\d+\.[\w-]{43}$/), min_submit_seconds: 2, challenge: null },
    });
  });

  it('tells a session who it is and whether it moderates', async () => {
    const reader = await session({ id: 'w-1', name: 'Reader' });
    const moderator = await session({ id: 'w-2', name: 'Mod', moderator: true });
    expect((await parley.request('GET', `/v1/widget?site_id=${site.site_id}`, { token: reader })).body.viewer).toEqual({ signed_in: true, name: 'Reader', moderator: false });
    expect((await parley.request('GET', `/v1/widget?site_id=${site.site_id}`, { token: moderator })).body.viewer).toEqual({ signed_in: true, name: 'Mod', moderator: true });
  });

  it("treats another site's session as the public, and an unknown site as 404", async () => {
    const other = await parley.newSite({ allowGuests: false });
    const foreign = await session({ id: 'w-3', name: 'Elsewhere' }, other.site_id, other.api_key);
    const response = await parley.request('GET', `/v1/widget?site_id=${site.site_id}`, { token: foreign });
    expect(response.body.viewer).toEqual({ signed_in: false, name: null, moderator: false });
    expect((await parley.request('GET', `/v1/widget?site_id=${other.site_id}`)).body.site.allow_guests).toBe(false);
    const missing = await parley.request('GET', '/v1/widget?site_id=site_nope');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('not_found');
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
