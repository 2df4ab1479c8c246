import { describe, expect, it } from 'vitest';
import { parleysPerTest } from '../helper.ts';
import { send, type RawRequest, type RawResponse } from './http-client.ts';

/**
 * Requests the framework answers on its own (undecodable paths, over-long parameters, bad JSON,
 * bodies over the limit, unknown media types, headers over 16 KiB) with the rate limits on: each
 * keeps its own answer, never a 5xx, and counts against the client's IP like any other request.
 */
const startParley = parleysPerTest();

const IP_LIMIT = 5;
/** With the IETF draft's fields, which name the policy a request counted against. */
const LIMITED = { PARLEY_RATE_LIMIT_IP_PER_MINUTE: String(IP_LIMIT), PARLEY_RATE_LIMIT_DRAFT_HEADERS: 'true' };

const json = { 'content-type': 'application/json' };
const MALFORMED: Array<[string, RawRequest, number, string]> = [
  ['a path that is not valid percent-encoding', { method: 'GET', path: '/v1/comments/%' }, 400, 'malformed_request'],
  ['a path that decodes to a lone surrogate', { method: 'GET', path: '/v1/comments/%ED%A0%80' }, 400, 'malformed_request'],
  ['a path parameter over 200 characters', { method: 'GET', path: `/v1/comments/${'x'.repeat(250)}` }, 400, 'validation_failed'],
  ['U+0000 in the path', { method: 'GET', path: '/v1/comments/a%00b' }, 400, 'validation_failed'],
  ['a body that is not JSON', { method: 'POST', path: '/v1/comments/cmt_x/flag', headers: json, body: '{"reason":' }, 400, 'invalid_json'],
  ['a body over 64 KiB', { method: 'POST', path: '/v1/comments/cmt_x/flag', headers: json, body: `{"reason":"${'x'.repeat(70_000)}"}` }, 413, 'payload_too_large'],
  ['an unknown media type', { method: 'POST', path: '/v1/comments/cmt_x/flag', headers: { 'content-type': 'application/xml' }, body: '<flag/>' }, 415, 'unsupported_media_type'],
  ['a refused credential', { method: 'GET', path: '/v1/sites', headers: { authorization: 'Bearer sk_unknown' } }, 401, 'unauthorized'],
];

function expectProblem(response: RawResponse, status: number, code: string) {
  expect(response.status, response.text).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(response.json).toMatchObject({ status, code });
  expect(response.headers['x-content-type-options']).toBe('nosniff');
}

describe('malformed requests with the rate limits on', () => {
  it.each(MALFORMED)('%s keeps its answer, with the IP limit headers, and counts against the IP', async (_name, raw, status, code) => {
    const parley = await startParley(LIMITED);
    for (let sent = 1; sent <= IP_LIMIT; sent += 1) {
      const response = await send(parley.url, raw);
      expectProblem(response, status, code);
      expect(response.headers['x-ratelimit-limit']).toBe(String(IP_LIMIT));
      expect(response.headers['x-ratelimit-remaining']).toBe(String(IP_LIMIT - sent));
      expect(response.headers['ratelimit-policy']).toBe(`"ip";q=${IP_LIMIT};w=60`);
    }
    const refused = await send(parley.url, raw);
    expectProblem(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    // The same IP's ordinary requests are past the limit too: the malformed ones were counted.
    expect((await send(parley.url, { method: 'GET', path: '/v1/comments/cmt_x' })).status).toBe(429);
  });

  it('an undecodable path used to be answered without counting or limit headers; it now counts against the client IP (TRUST_PROXY applied)', async () => {
    const parley = await startParley({ ...LIMITED, TRUST_PROXY: '127.0.0.1' });
    const from = (ip: string, path: string) => send(parley.url, { method: 'GET', path, headers: { 'x-forwarded-for': ip } });
    for (let sent = 1; sent <= IP_LIMIT; sent += 1) {
      const response = await from('203.0.113.7', '/v1/comments/%zz');
      expectProblem(response, 400, 'malformed_request');
      expect(response.headers['x-ratelimit-remaining']).toBe(String(IP_LIMIT - sent));
    }
    expectProblem(await from('203.0.113.7', '/v1/comments/%zz'), 429, 'rate_limited');
    expect((await from('203.0.113.7', '/v1/comments/cmt_x')).status).toBe(429);
    // Counted against the forwarded client, not against the proxy every client comes through.
    expectProblem(await from('203.0.113.8', '/v1/comments/cmt_x'), 404, 'not_found');
  });

  it('headers over 16 KiB get 431 from the HTTP parser before any request exists: not counted, and the server keeps answering', async () => {
    const parley = await startParley(LIMITED);
    const tooLarge = await send(parley.url, { method: 'GET', path: `/v1/comments?q=${'z'.repeat(17_000)}` });
    expect(tooLarge.status).toBe(431);
    expect(tooLarge.json).toMatchObject({ status: 431, code: 'headers_too_large' });
    const next = await send(parley.url, { method: 'GET', path: '/v1/comments/cmt_x' });
    expectProblem(next, 404, 'not_found');
    expect(next.headers['x-ratelimit-remaining']).toBe(String(IP_LIMIT - 1));
  });
});
