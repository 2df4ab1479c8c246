import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let open: { site_id: string; api_key: string };
let listed: { site_id: string; api_key: string };

beforeAll(async () => {
  parley = await startParley();
  open = await parley.newSite();
  listed = await parley.newSite({ domains: ['blog.example.com'] });
});
afterAll(() => parley.close());

const preflight = (path: string, origin: string, method = 'POST') =>
  parley.request('OPTIONS', path, {
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type' },
  });

describe('CORS for the widget', () => {
  it('lets any origin call a site that lists no domains, preflight included, never with credentials', async () => {
    const pre = await preflight('/v1/comments', 'https://anywhere.test');
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/Authorization/i);
    expect(pre.headers.get('access-control-allow-credentials')).toBeNull();
    const list = await parley.request('GET', `/v1/comments?site_id=${open.site_id}&thread_url=${encodeURIComponent(pageUrl())}`, { headers: { origin: 'https://anywhere.test' } });
    expect(list.headers.get('access-control-allow-origin')).toBe('*');
    expect(list.headers.get('access-control-expose-headers')).toContain('Retry-After');
    expect(list.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it("allows only the site's domains when it lists some", async () => {
    const path = `/v1/comments?site_id=${listed.site_id}&thread_url=${encodeURIComponent(pageUrl())}`;
    const allowed = await parley.request('GET', path, { headers: { origin: 'https://blog.example.com' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://blog.example.com');
    expect(allowed.headers.get('vary')).toContain('Origin');
    const refused = await parley.request('GET', path, { headers: { origin: 'https://evil.test' } });
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    const refusedPreflight = await preflight(path, 'https://evil.test', 'GET');
    expect(refusedPreflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("allows the pages of the site's domains alone: http or https on its default port, not another scheme or port of the host", async () => {
    const path = `/v1/comments?site_id=${listed.site_id}&thread_url=${encodeURIComponent(pageUrl())}`;
    const allowOf = async (origin: string) => (await parley.request('GET', path, { headers: { origin } })).headers.get('access-control-allow-origin');
    for (const origin of ['https://blog.example.com', 'http://blog.example.com', 'https://blog.example.com:443', 'http://blog.example.com:80']) {
      expect(await allowOf(origin), origin).toBe(origin);
    }
    const others = ['ftp://blog.example.com', 'http://blog.example.com:8081', 'https://blog.example.com:8443', 'http://blog.example.com:443', 'https://blog.example.com.evil.test'];
    for (const origin of others) {
      expect(await allowOf(origin), origin).toBeNull();
      expect((await preflight(path, origin, 'GET')).headers.get('access-control-allow-origin'), origin).toBeNull();
      const post = await parley.request('POST', '/v1/comments', { body: { site_id: listed.site_id, thread_url: pageUrl(), content: 'from another port' }, headers: { origin } });
      expect(post.status, origin).toBe(403);
    }
  });

  it('allows the one port a domain is written with (localhost:8080), over http or https', async () => {
    const dev = await parley.newSite({ domains: ['localhost:8080'] });
    const thread = 'http://localhost:8080/post';
    const path = `/v1/comments?site_id=${dev.site_id}&thread_url=${encodeURIComponent(thread)}`;
    for (const origin of ['http://localhost:8080', 'https://localhost:8080']) {
      expect((await parley.request('GET', path, { headers: { origin } })).headers.get('access-control-allow-origin'), origin).toBe(origin);
    }
    for (const origin of ['http://localhost', 'http://localhost:8081']) {
      expect((await parley.request('GET', path, { headers: { origin } })).headers.get('access-control-allow-origin'), origin).toBeNull();
    }
    const posted = await parley.request('POST', '/v1/comments', { body: { site_id: dev.site_id, thread_url: thread, content: 'from the dev server' }, headers: { origin: 'http://localhost:8080' } });
    expect(posted.status).toBe(201);
    const elsewhere = await parley.request('POST', '/v1/comments', { token: dev.api_key, body: { site_id: dev.site_id, thread_url: 'http://localhost:9090/post', content: 'another port' } });
    expect(elsewhere.status).toBe(400);
  });

  it("finds the site of a comment named in the path, and refuses writes from other origins", async () => {
    const thread = pageUrl();
    const comment = await parley.request('POST', '/v1/comments', { token: listed.api_key, body: { site_id: listed.site_id, thread_url: thread, content: 'hi' } });
    const path = `/v1/comments/${comment.body.id}/flag`;
    expect((await preflight(path, 'https://blog.example.com')).headers.get('access-control-allow-origin')).toBe('https://blog.example.com');
    expect((await preflight(path, 'https://evil.test')).headers.get('access-control-allow-origin')).toBeNull();
    const flagged = await parley.request('POST', path, { body: {}, headers: { origin: 'https://evil.test' } });
    expect(flagged.status).toBe(403);
    expect(flagged.body.code).toBe('forbidden');
    const post = await parley.request('POST', '/v1/comments', {
      body: { site_id: listed.site_id, thread_url: thread, content: 'from elsewhere' },
      headers: { origin: 'https://evil.test' },
    });
    expect(post.status).toBe(403);
    const list = await parley.request('GET', `/v1/comments?site_id=${listed.site_id}&thread_url=${encodeURIComponent(thread)}`);
    expect(list.body.total).toBe(1);
  });

  it("takes the site from what the route acts on: a site_id in the query of a post does not lift the body's site's domains", async () => {
    const thread = pageUrl();
    const post = await parley.request('POST', `/v1/comments?site_id=${open.site_id}`, {
      body: { site_id: listed.site_id, thread_url: thread, content: 'from elsewhere' },
      headers: { origin: 'https://evil.test' },
    });
    expect(post.status).toBe(403);
    expect(post.body.code).toBe('forbidden');
    expect(post.headers.get('access-control-allow-origin')).toBeNull();
    const list = await parley.request('GET', `/v1/comments?site_id=${listed.site_id}&thread_url=${encodeURIComponent(thread)}`);
    expect(list.body.total).toBe(0);
  });

  it("takes a comment's site from the comment, whatever site_id the query names", async () => {
    const comment = await parley.request('POST', '/v1/comments', { token: listed.api_key, body: { site_id: listed.site_id, thread_url: pageUrl(), content: 'hi' } });
    const evil = { origin: 'https://evil.test' };
    const flagged = await parley.request('POST', `/v1/comments/${comment.body.id}/flag?site_id=${open.site_id}`, { body: {}, headers: evil });
    expect(flagged.status).toBe(403);
    expect(flagged.headers.get('access-control-allow-origin')).toBeNull();
    const preflighted = await preflight(`/v1/comments/${comment.body.id}/flag?site_id=${open.site_id}`, 'https://evil.test');
    expect(preflighted.headers.get('access-control-allow-origin')).toBeNull();
    const read = await parley.request('GET', `/v1/comments/${comment.body.id}?site_id=${open.site_id}`, { headers: evil });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('makes errors readable to allowed pages too (so the widget can show them)', async () => {
    const response = await parley.request('GET', '/v1/comments/cmt_missing', { headers: { origin: 'https://blog.example.com' } });
    expect(response.status).toBe(404);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const badToken = await parley.request('GET', `/v1/widget?site_id=${open.site_id}`, { token: 'sess_nope', headers: { origin: 'https://anywhere.test' } });
    expect(badToken.status).toBe(401);
    expect(badToken.headers.get('access-control-allow-origin')).toBe('*');
  });

  it("answers a reader's own session (sign out, mail settings) for the pages of the session's site only", async () => {
    const session = await parley.signIn(listed.api_key, listed.site_id, { id: 'cors-reader', name: 'Reader' });
    // A preflight carries no credential: it is answered for any origin, PUT included, and the request itself is checked.
    const pre = await preflight('/v1/sessions/current/mail', 'https://evil.test', 'PUT');
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-methods')).toContain('PUT');
    const settings = (origin: string) => parley.request('GET', '/v1/sessions/current/mail', { token: session, headers: { origin } });
    expect((await settings('https://blog.example.com')).headers.get('access-control-allow-origin')).toBe('https://blog.example.com');
    expect((await settings('https://evil.test')).headers.get('access-control-allow-origin')).toBeNull();
    const elsewhere = await parley.request('DELETE', '/v1/sessions/current', { token: session, headers: { origin: 'https://evil.test' } });
    expect(elsewhere.status).toBe(403);
    const signOut = await parley.request('DELETE', '/v1/sessions/current', { token: session, headers: { origin: 'https://blog.example.com' } });
    expect(signOut.status).toBe(204);
    expect(signOut.headers.get('access-control-allow-origin')).toBe('https://blog.example.com');
    // The session is over: the widget reads the 401 and forgets its token.
    const ended = await settings('https://blog.example.com');
    expect(ended.status).toBe(401);
    expect(ended.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('leaves the management API and same-origin requests without CORS headers', async () => {
    const sites = await parley.request('GET', '/v1/sites', { token: open.api_key, headers: { origin: 'https://anywhere.test' } });
    expect(sites.headers.get('access-control-allow-origin')).toBeNull();
    const mint = await preflight('/v1/sessions', 'https://anywhere.test');
    expect(mint.headers.get('access-control-allow-origin')).toBeNull();
    const manage = await preflight(`/api/sites/${open.site_id}`, 'https://anywhere.test', 'PATCH');
    expect(manage.headers.get('access-control-allow-origin')).toBeNull();
    const same = await parley.request('GET', `/v1/widget?site_id=${open.site_id}`, { headers: { origin: parley.url } });
    expect(same.headers.get('access-control-allow-origin')).toBeNull();
  });
});
