import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { send } from '../../test/hardening/http-client.ts';

/** Regression tests, one per defect the hardening suites found; each name says the defect. */
let parley: TestParley;
let site: { site_id: string; api_key: string };
beforeAll(async () => {
  parley = await startParley({ PARLEY_HTTP_HEADERS_TIMEOUT: '1s', PARLEY_HTTP_REQUEST_TIMEOUT: '2s', PARLEY_HTTP_KEEP_ALIVE_TIMEOUT: '1s' });
  site = await parley.newSite();
});
afterAll(() => parley.close());

function expectProblem(response: { status: number; headers: Record<string, unknown>; json: any }, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(String(response.headers['content-type'])).toMatch(/^application\/problem\+json/);
  expect(response.json).toMatchObject({ status, code, type: expect.any(String), title: expect.any(String), detail: expect.any(String) });
}

/** Writes raw bytes on a socket and collects everything until the server closes it. */
function rawExchange(bytes: string, dribble?: { chunk: string; everyMs: number }): Promise<{ text: string; closedAfterMs: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(parley.url).port), '127.0.0.1', () => socket.write(bytes));
    let text = '';
    const timer = dribble && setInterval(() => socket.writable && socket.write(dribble.chunk), dribble.everyMs);
    socket.on('data', (data) => (text += data.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ text, closedAfterMs: Date.now() - started });
    });
    setTimeout(() => reject(new Error('the server never closed the connection')), 15_000).unref();
  });
}

function problemOf(raw: string) {
  const [head, body] = raw.split('\r\n\r\n');
  return { statusLine: head.split('\r\n')[0], contentType: /content-type: ([^\r]+)/i.exec(head)?.[1], body: JSON.parse(body) };
}

describe('defects found by hardening, fixed', () => {
  it('a path that is not valid percent-encoded UTF-8 was answered with plain JSON, not problem+json', async () => {
    for (const path of ['/v1/comments/%', '/v1/comments/%ED%A0%80', '/v1/comments/%E0%A4%A/vote']) {
      expectProblem(await send(parley.url, { method: 'GET', path }), 400, 'malformed_request');
    }
  });

  it('a path parameter over 200 characters was answered 414 with plain JSON', async () => {
    const response = await send(parley.url, { method: 'GET', path: `/v1/comments/${'a'.repeat(300)}` });
    expectProblem(response, 400, 'validation_failed');
  });

  it('headers over 16 KiB (or a query string that long) were answered 431 with plain JSON', async () => {
    const response = await send(parley.url, { method: 'GET', path: `/v1/comments?thread_url=${'q'.repeat(17_000)}` }).catch(() => null);
    const raw = await rawExchange(`GET /v1/comments HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(17_000)}\r\n\r\n`);
    for (const problem of [problemOf(raw.text), response && { statusLine: `HTTP/1.1 ${response.status}`, contentType: response.headers['content-type'], body: response.json }]) {
      if (!problem) continue;
      expect(problem.statusLine).toMatch(/^HTTP\/1\.1 431/);
      expect(problem.contentType).toMatch(/^application\/problem\+json/);
      expect(problem.body).toMatchObject({ status: 431, code: 'headers_too_large' });
    }
  });

  it('a request that is not valid HTTP was answered with plain JSON', async () => {
    const raw = await rawExchange('GARBAGE\r\n\r\n');
    const problem = problemOf(raw.text);
    expect(problem.statusLine).toMatch(/^HTTP\/1\.1 400/);
    expect(problem.contentType).toMatch(/^application\/problem\+json/);
    expect(problem.body).toMatchObject({ status: 400, code: 'malformed_request' });
  });

  it('U+0000 in an id, a query value or a body field was a 500 on PostgreSQL', async () => {
    expectProblem(await send(parley.url, { method: 'GET', path: '/v1/comments/cmt_%00' }), 400, 'validation_failed');
    const query = await send(parley.url, { method: 'GET', path: `/v1/comments?site_id=%00&thread_url=${encodeURIComponent(pageUrl())}` });
    expectProblem(query, 400, 'validation_failed');
    expect(query.json.errors[0].path).toBe('querystring/site_id');
    const body = await parley.request('POST', '/api/keys', { token: site.api_key, body: { role: 'admin', site_ids: ['\u0000'] } });
    expect(body.status).toBe(400);
    expect(body.body.errors[0].path).toBe('body/site_ids/0');
  });

  it('a JSON body nested 5,000 deep that passed validation was a 500 (the NUL check recursed until the stack ran out)', async () => {
    const nested = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    const json = { 'content-type': 'application/json' };
    const path = `/api/sites/${site.site_id}`;
    expectProblem(await send(parley.url, { method: 'PATCH', path, headers: json, body: nested }), 401, 'unauthorized');
    const asAdmin = await send(parley.url, { method: 'PATCH', path, headers: { ...json, authorization: `Bearer ${site.api_key}` }, body: nested });
    expect(asAdmin.status).toBe(200);
    // The unknown field was dropped, not stored.
    expect(asAdmin.json).not.toHaveProperty('a');
  });

  it('U+0000 in a site or comment id of a cross-origin request was a 500 (not even problem+json) on PostgreSQL', async () => {
    const preflight = { origin: 'https://elsewhere.example.net', 'access-control-request-method': 'POST' };
    expect((await send(parley.url, { method: 'OPTIONS', path: '/v1/comments?site_id=%00', headers: preflight })).status).toBe(204);
    expect((await send(parley.url, { method: 'OPTIONS', path: '/v1/comments/a%00/vote', headers: preflight })).status).toBe(204);
    const post = await send(parley.url, {
      method: 'POST',
      path: '/v1/comments',
      headers: { origin: 'https://elsewhere.example.net', 'content-type': 'application/json' },
      body: JSON.stringify({ site_id: 'a\u0000', thread_url: pageUrl(), content: 'x' }),
    });
    expectProblem(post, 400, 'validation_failed');
  });

  it('an API key name with control characters was accepted and became the author_name of its comments', async () => {
    const response = await parley.request('POST', '/api/keys', { token: site.api_key, body: { role: 'integration', name: 'bot\u0007' } });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].path).toBe('body/name');
  });

  it("another tenant's credential could flag a comment (200) instead of getting 404", async () => {
    const comment = await parley.request('POST', '/v1/comments', { token: site.api_key, body: { site_id: site.site_id, thread_url: pageUrl(), content: 'hi' } });
    const stranger = await parley.newSite();
    const strangerSession = await parley.signIn(stranger.api_key, stranger.site_id, { id: 'x', name: 'X' });
    for (const token of [stranger.api_key, strangerSession]) {
      const response = await parley.request('POST', `/v1/comments/${comment.body.id}/flag`, { token, body: {} });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    }
  });
});

describe('slow and abusive clients', () => {
  it('cuts off a slowloris client that never finishes its headers, with 408 problem+json', async () => {
    const raw = await rawExchange('GET /v1/sites HTTP/1.1\r\nHost: x\r\n', { chunk: 'X-a: b\r\n', everyMs: 200 });
    // headers time-out 1 s, checked every second
    expect(raw.closedAfterMs).toBeLessThan(4_000);
    const problem = problemOf(raw.text);
    expect(problem.statusLine).toMatch(/^HTTP\/1\.1 408/);
    expect(problem.body).toMatchObject({ status: 408, code: 'request_timeout' });
  });

  it('cuts off a client that sends its body too slowly', async () => {
    const raw = await rawExchange(
      'POST /v1/comments HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{',
      { chunk: ' ', everyMs: 100 },
    );
    expect(raw.closedAfterMs).toBeLessThan(5_000);
  });

  it('closes an idle keep-alive connection', async () => {
    const raw = await rawExchange('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(raw.text).toMatch(/^HTTP\/1\.1 200/);
    expect(raw.closedAfterMs).toBeLessThan(4_000);
  });

  it('refuses a body over 64 KiB with 413 problem+json', async () => {
    const response = await send(parley.url, { method: 'POST', path: '/v1/comments', headers: { 'content-type': 'application/json' }, body: `{"content":"${'x'.repeat(70_000)}"}` });
    expectProblem(response, 413, 'payload_too_large');
  });

  it('returns stored HTML and script as inert JSON strings', async () => {
    const payload = '<script>alert(document.cookie)</script><img src=x onerror=alert(1)>';
    const created = await parley.request('POST', '/v1/comments', { body: { site_id: site.site_id, thread_url: pageUrl(), content: payload, author_name: '<b>bold</b>', ...(await parley.guestForm(site.site_id)) } });
    const read = await send(parley.url, { method: 'GET', path: `/v1/comments/${created.body.id}` });
    expect(read.headers['content-type']).toMatch(/^application\/json/);
    expect(read.headers['x-content-type-options']).toBe('nosniff');
    expect(read.text.startsWith('{')).toBe(true);
    expect(read.json.content).toBe(payload);
    expect(read.json.author_name).toBe('<b>bold</b>');
  });
});
