import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { site_id: string; api_key: string };
let restricted: { site_id: string; api_key: string };

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
  restricted = await parley.newSite({ domains: ['news.example.org'], allowGuests: false });
});
afterAll(() => parley.close());

const post = (body: unknown, token?: string) => parley.request('POST', '/v1/comments', { token: token ?? site.api_key, body });

function expectProblem(response: { status: number; headers: Headers; body: any }, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.body).toMatchObject({ status, code, type: expect.any(String), title: expect.any(String), detail: expect.any(String) });
}

describe('creating a comment with bad input', () => {
  it.each([
    ['empty content', { content: '   ' }, 'body/content'],
    ['content over 10,000 characters', { content: 'x'.repeat(10_001) }, 'body/content'],
    ['content with a control character', { content: 'bell\u0007' }, 'body/content'],
    ['content that is not a string', { content: 42 }, 'body/content'],
    ['a relative thread_url', { thread_url: '/posts/1' }, 'body/thread_url'],
    ['a non-http thread_url', { thread_url: 'ftp://blog.example.com/x' }, 'body/thread_url'],
    ['a thread_url over 2,048 characters', { thread_url: `https://a.example.com/${'p'.repeat(2100)}` }, 'body/thread_url'],
    ['a thread_url with a user name (userinfo)', { thread_url: 'https://evil.example.com@blog.example.com/posts/1' }, 'body/thread_url'],
    ['a thread_url with a user name and password', { thread_url: 'https://user:secret@blog.example.com/posts/1' }, 'body/thread_url'],
    ['an author_name over 100 characters', { author_name: 'n'.repeat(101) }, 'body/author_name'],
    ['a missing site_id', { site_id: undefined }, 'body/site_id'],
  ])('refuses %s with 400 validation_failed naming the field', async (_name, change, path) => {
    const response = await post({ thread_url: pageUrl(), site_id: site.site_id, content: 'hi', ...change });
    expectProblem(response, 400, 'validation_failed');
    expect(response.body.errors.map((e: any) => e.path)).toContain(path);
  });

  it('refuses an author_name holding a bidirectional control or a zero-width character with 400 validation_failed', async () => {
    const invisible = [
      ...'\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F',
      ...'\u200B\u200C\u200D\u2060\uFEFF',
    ];
    for (const character of invisible) {
      for (const name of [`Ad${character}min`, `${character}${character}`]) {
        for (const token of [undefined, site.api_key]) {
          const response = await parley.request('POST', '/v1/comments', { token, body: { thread_url: pageUrl(), site_id: site.site_id, content: 'hi', author_name: name } });
          expectProblem(response, 400, 'validation_failed');
          expect(response.body.errors[0].path, `U+${character.codePointAt(0)!.toString(16)}`).toBe('body/author_name');
        }
      }
    }
    for (const name of ['Zoë', 'محمد', '李雷', 'O’Brien (she/her)']) {
      expect((await post({ thread_url: pageUrl(), site_id: site.site_id, content: 'hi', author_name: name })).status, name).toBe(201);
    }
  });

  it('accepts content of exactly 10,000 characters once trimmed', async () => {
    const response = await post({ thread_url: pageUrl(), site_id: site.site_id, content: ` ${'x'.repeat(10_000)}\n` });
    expect(response.status).toBe(201);
    expect(response.body.content).toHaveLength(10_000);
  });

  it('refuses a thread on a host the site does not list', async () => {
    const bad = await post({ thread_url: 'https://evil.example.com/x', site_id: restricted.site_id, content: 'hi' }, restricted.api_key);
    expectProblem(bad, 400, 'validation_failed');
    const good = await post({ thread_url: 'https://NEWS.example.org/x', site_id: restricted.site_id, content: 'hi' }, restricted.api_key);
    expect(good.status).toBe(201);
  });

  it('refuses a parent from another thread', async () => {
    const parent = await post({ thread_url: pageUrl(), site_id: site.site_id, content: 'parent' });
    const reply = await post({ thread_url: pageUrl(), site_id: site.site_id, content: 'reply', parent_id: parent.body.id });
    expectProblem(reply, 400, 'validation_failed');
    expect(reply.body.errors[0].path).toBe('body/parent_id');
  });

  it('refuses an unknown parent with 400', async () => {
    const reply = await post({ thread_url: pageUrl(), site_id: site.site_id, content: 'reply', parent_id: 'cmt_nope' });
    expectProblem(reply, 400, 'validation_failed');
  });

  const sendRaw = (raw: string, contentType = 'application/json') =>
    parley.request('POST', '/v1/comments', { token: site.api_key, raw, headers: { 'content-type': contentType } });

  it.each([
    ['malformed JSON', '{"content": "unterminated', 'application/json', 400, 'invalid_json'],
    ['a __proto__ key (refused rather than parsed)', '{"content":"x","__proto__":{"admin":true}}', 'application/json', 400, 'invalid_json'],
    ['a form body', 'content=hi', 'application/x-www-form-urlencoded', 415, 'unsupported_media_type'],
    ['a text/plain body', 'hi', 'text/plain', 415, 'unsupported_media_type'],
  ])('answers %s with a problem', async (_name, raw, contentType, status, code) => {
    expectProblem(await sendRaw(raw, contentType), status, code);
  });

  it('answers a body over 64 KiB with 413 payload_too_large', async () => {
    const response = await post({ thread_url: pageUrl(), site_id: site.site_id, content: 'x'.repeat(70_000) });
    expectProblem(response, 413, 'payload_too_large');
  });

  it('answers an unknown site with 404', async () => {
    expectProblem(await post({ thread_url: pageUrl(), site_id: 'site_unknown', content: 'hi' }), 404, 'not_found');
  });

  it('refuses guests where the site does not allow them, with 401', async () => {
    const response = await parley.request('POST', '/v1/comments', {
      body: { thread_url: 'https://news.example.org/x', site_id: restricted.site_id, content: 'hi' },
    });
    expectProblem(response, 401, 'unauthorized');
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
  });
});

describe('listing with bad input', () => {
  const list = (query: string) => parley.request('GET', `/v1/comments?${query}`);

  it.each([
    ['limit=0', 'querystring/limit'],
    ['limit=101', 'querystring/limit'],
    ['page=0', 'querystring/page'],
    ['page=abc', 'querystring/page'],
    ['sort=random', 'querystring/sort'],
  ])('refuses %s with 400 rather than clamping', async (param, path) => {
    const response = await list(`thread_url=${encodeURIComponent(pageUrl())}&site_id=${site.site_id}&${param}`);
    expectProblem(response, 400, 'validation_failed');
    expect(response.body.errors[0].path).toBe(path);
  });

  it('refuses a thread_url with a user name or password (userinfo) with 400', async () => {
    for (const url of ['https://evil.example.com@blog.example.com/posts/1', 'https://:pw@blog.example.com/posts/1']) {
      const response = await list(`thread_url=${encodeURIComponent(url)}&site_id=${site.site_id}`);
      expectProblem(response, 400, 'validation_failed');
      expect(response.body.errors[0].path).toBe('querystring/thread_url');
    }
  });

  it('needs thread_url and site_id', async () => {
    expectProblem(await list(`site_id=${site.site_id}`), 400, 'validation_failed');
    expectProblem(await list(`thread_url=${encodeURIComponent(pageUrl())}`), 400, 'validation_failed');
  });

  it('answers an unknown comment id with 404', async () => {
    expectProblem(await parley.request('GET', '/v1/comments/cmt_unknown'), 404, 'not_found');
  });

  it('answers an unknown route with a problem+json 404', async () => {
    expectProblem(await parley.request('GET', '/v1/nothing-here'), 404, 'not_found');
  });
});

describe('credentials', () => {
  it.each([
    ['an unknown API key', { authorization: 'Bearer sk_doesnotexist0000000000000000000000000' }],
    ['an unknown session', { authorization: 'Bearer sess_doesnotexist00000000000000000000000' }],
    ['an unknown X-API-Key', { 'x-api-key': 'sk_doesnotexist0000000000000000000000000' }],
    ['a malformed Authorization header', { authorization: 'Basic abc' }],
  ])('answers %s with 401 even on a public read', async (_name, headers) => {
    const response = await parley.request('GET', `/v1/comments?thread_url=${encodeURIComponent(pageUrl())}&site_id=${site.site_id}`, { headers });
    expectProblem(response, 401, 'unauthorized');
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('answers an empty X-API-Key header with 401 unauthorized, not as the public or a guest', async () => {
    for (const value of ['', '   ']) {
      const read = await parley.request('GET', `/v1/comments?thread_url=${encodeURIComponent(pageUrl())}&site_id=${site.site_id}`, { headers: { 'x-api-key': value } });
      expectProblem(read, 401, 'unauthorized');
      expect(read.headers.get('www-authenticate')).toBe('Bearer');
      const write = await parley.request('POST', '/v1/comments', { headers: { 'x-api-key': value }, body: { thread_url: pageUrl(), site_id: site.site_id, content: 'guest?' } });
      expectProblem(write, 401, 'unauthorized');
    }
    const emptyAuthorization = await parley.request('GET', `/v1/comments?thread_url=${encodeURIComponent(pageUrl())}&site_id=${site.site_id}`, { headers: { authorization: '' } });
    expectProblem(emptyAuthorization, 401, 'unauthorized');
  });

  it('accepts the API key in X-API-Key', async () => {
    const response = await parley.request('POST', '/v1/comments', {
      headers: { 'x-api-key': site.api_key },
      body: { thread_url: pageUrl(), site_id: site.site_id, content: 'via X-API-Key' },
    });
    expect(response.status).toBe(201);
    expect(response.body.author_name).toBe('bootstrap admin key');
  });

  it("hides another account's site behind 404", async () => {
    const other = await parley.newSite();
    expectProblem(await post({ thread_url: pageUrl(), site_id: other.site_id, content: 'hi' }), 404, 'not_found');
  });
});
