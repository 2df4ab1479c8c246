import { describe, expect, it } from 'vitest';
import { pageUrl, parleysPerTest, type ApiResponse, type TestParley } from '../../test/helper.ts';

const startParley = parleysPerTest();
/** With the IETF draft's fields too: they name the policy a request counted against. */
const parleyWith = (env: Record<string, string>) => startParley({ PARLEY_RATE_LIMIT_DRAFT_HEADERS: 'true', ...env });

function guestPost(parley: TestParley, siteId: string, content = 'Hello from a guest') {
  return parley.request('POST', '/v1/comments', { body: { thread_url: pageUrl(), site_id: siteId, content, author_name: 'Guest' } });
}

function statuses(responses: ApiResponse[]): number[] {
  return responses.map((response) => response.status);
}

function rateHeaders(response: ApiResponse) {
  const header = (name: string) => response.headers.get(name);
  return {
    limit: header('x-ratelimit-limit'),
    remaining: header('x-ratelimit-remaining'),
    reset: Number(header('x-ratelimit-reset')),
    policy: header('ratelimit-policy'),
    ratelimit: header('ratelimit'),
    retryAfter: header('retry-after'),
  };
}

describe('the fields of a limited answer', () => {
  it("are the contract's X-RateLimit-Limit, -Remaining and -Reset; the draft's RateLimit-Policy and RateLimit only when asked for", async () => {
    // The first request of a client starts its window: X-RateLimit-Reset is 60 s after it.
    const read = async (parley: TestParley) => {
      const site = await parley.newSite();
      const sentAt = Date.now() / 1000;
      const fields = rateHeaders(await parley.request('GET', `/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent(pageUrl())}`));
      expect(fields.reset).toBeGreaterThanOrEqual(Math.floor(sentAt) + 60);
      expect(fields.reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
      return fields;
    };
    const plain = await read(await startParley({ PARLEY_RATE_LIMIT_IP_PER_MINUTE: '600' }));
    expect(plain).toMatchObject({ limit: '600', remaining: '599', policy: null, ratelimit: null });
    const drafted = await read(await parleyWith({ PARLEY_RATE_LIMIT_IP_PER_MINUTE: '600' }));
    expect(drafted).toMatchObject({ limit: '600', remaining: '599', policy: '"ip";q=600;w=60', ratelimit: '"ip";r=599;t=60' });
  });
});

describe('the guest comment limit (5 an hour per IP by default)', () => {
  it('refuses the 6th guest comment of the hour with a 429 problem and Retry-After', async () => {
    const parley = await parleyWith({ PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: '5' });
    expect(parley.config.rateLimits.commentWindowSeconds).toBe(3600);
    const site = await parley.newSite({ allowGuests: true });
    const before = Math.floor(Date.now() / 1000);
    const accepted: ApiResponse[] = [];
    for (let i = 0; i < 5; i++) accepted.push(await guestPost(parley, site.site_id));
    expect(statuses(accepted)).toEqual([201, 201, 201, 201, 201]);
    expect(accepted.map((r) => rateHeaders(r).remaining)).toEqual(['4', '3', '2', '1', '0']);

    const first = rateHeaders(accepted[0]);
    expect(first.limit).toBe('5');
    expect(first.reset).toBeGreaterThanOrEqual(before + 3599);
    expect(first.reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 3600);
    expect(first.policy).toBe('"guest-comments";q=5;w=3600');
    expect(first.ratelimit).toMatch(/^"guest-comments";r=4;t=(3599|3600)$/);
    expect(first.retryAfter).toBeNull();

    const refused = await guestPost(parley, site.site_id);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ status: 429, code: 'rate_limited', title: 'Too many requests' });
    const headers = rateHeaders(refused);
    expect(headers).toMatchObject({ limit: '5', remaining: '0', policy: '"guest-comments";q=5;w=3600' });
    expect(Number(headers.retryAfter)).toBeGreaterThan(3590);
    expect(Number(headers.retryAfter)).toBeLessThanOrEqual(3600);
    expect(headers.reset).toBe(first.reset);
  });

  it('lets exactly 5 of 100 concurrent guest posts from one IP through', async () => {
    const parley = await parleyWith({ PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: '5' });
    const site = await parley.newSite({ allowGuests: true });
    const responses = await Promise.all(Array.from({ length: 100 }, (_, i) => guestPost(parley, site.site_id, `flood ${i}`)));
    expect(statuses(responses).filter((status) => status === 201)).toHaveLength(5);
    expect(statuses(responses).filter((status) => status === 429)).toHaveLength(95);
  });

  it('gives a failed comment creation back: a rejected post does not use up the hour', async () => {
    const parley = await parleyWith({ PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: '2' });
    const site = await parley.newSite({ allowGuests: true });
    expect((await guestPost(parley, site.site_id)).status).toBe(201);
    const invalid = await guestPost(parley, site.site_id, '   ');
    expect(invalid.status).toBe(400);
    expect(rateHeaders(invalid)).toMatchObject({ limit: '2', remaining: '1', ratelimit: expect.stringMatching(/^"guest-comments";r=1;/) });
    expect((await guestPost(parley, site.site_id)).status).toBe(201);
    expect((await guestPost(parley, site.site_id)).status).toBe(429);
  });

  it('does not count guest comments against reads, nor reads against guest comments', async () => {
    const parley = await parleyWith({ PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: '1', PARLEY_RATE_LIMIT_IP_PER_MINUTE: '3' });
    const site = await parley.newSite({ allowGuests: true });
    const read = () => parley.request('GET', `/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent(pageUrl())}`);
    expect(rateHeaders(await read())).toMatchObject({ limit: '3', remaining: '2', policy: '"ip";q=3;w=60' });
    expect((await guestPost(parley, site.site_id)).status).toBe(201);
    expect(rateHeaders(await read())).toMatchObject({ remaining: '1' });
  });
});

describe('the session comment limit (30 an hour per user by default)', () => {
  it('refuses the 31st comment of a user, while another user of the site still posts', async () => {
    const parley = await parleyWith({ PARLEY_RATE_LIMIT_SESSION_COMMENTS_PER_HOUR: '30' });
    const site = await parley.newSite();
    const ada = await parley.signIn(site.api_key, site.site_id, { id: 'ada', name: 'Ada' });
    const thread = pageUrl();
    const post = (token: string) => parley.request('POST', '/v1/comments', { token, body: { thread_url: thread, site_id: site.site_id, content: 'hi' } });
    const first30: ApiResponse[] = [];
    for (let i = 0; i < 30; i++) first30.push(await post(ada));
    expect(first30.every((r) => r.status === 201)).toBe(true);
    expect(rateHeaders(first30[0])).toMatchObject({ limit: '30', remaining: '29', policy: '"session-comments";q=30;w=3600' });
    expect(rateHeaders(first30[29]).remaining).toBe('0');

    const refused = await post(ada);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3500);

    const grace = await parley.signIn(site.api_key, site.site_id, { id: 'grace', name: 'Grace' });
    expect((await post(grace)).status).toBe(201);
  });

  it('counts a session user’s other calls under the per-IP request limit', async () => {
    const parley = await parleyWith({ PARLEY_RATE_LIMIT_SESSION_COMMENTS_PER_HOUR: '30', PARLEY_RATE_LIMIT_IP_PER_MINUTE: '600' });
    const site = await parley.newSite();
    const token = await parley.signIn(site.api_key, site.site_id, { id: 'ada', name: 'Ada' });
    const signOut = await parley.request('DELETE', '/v1/sessions/current', { token });
    expect(signOut.status).toBe(204);
    expect(rateHeaders(signOut)).toMatchObject({ limit: '600', remaining: '599', policy: '"ip";q=600;w=60' });
  });
});

describe('the API key limit (1000 requests a minute per key by default)', () => {
  it('refuses the 1001st request of a key in a minute, on any endpoint, errors included', async () => {
    const parley = await parleyWith({ PARLEY_RATE_LIMIT_KEY_PER_MINUTE: '1000' });
    expect(parley.config.rateLimits.requestWindowSeconds).toBe(60);
    const site = await parley.newSite();
    const other = await parley.newSite();
    const read = `/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent(pageUrl())}`;
    const paths = [read, '/v1/comments/cmt_unknown', '/api/sites', '/no/such/route'];
    const seen = new Set<number>();
    for (let batch = 0; batch < 20; batch++) {
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, i) => parley.request('GET', paths[i % paths.length], { token: site.api_key })),
      );
      for (const response of responses) seen.add(response.status);
      expect(responses.every((response) => response.headers.get('x-ratelimit-limit') === '1000')).toBe(true);
    }
    expect([...seen].sort()).toEqual([200, 404]);

    const refused = await parley.request('GET', read, { token: site.api_key });
    expect(refused.status).toBe(429);
    expect(rateHeaders(refused)).toMatchObject({ limit: '1000', remaining: '0', policy: '"api-key";q=1000;w=60' });
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);

    expect((await parley.request('GET', read, { token: other.api_key })).status).toBe(200);
  });
});

describe('Retry-After', () => {
  it('is long enough: a request sent after it succeeds', async () => {
    const parley = await parleyWith({ PARLEY_RATE_LIMIT_IP_PER_MINUTE: '2', PARLEY_RATE_LIMIT_REQUEST_WINDOW: '2s' });
    const hit = () => parley.request('GET', '/no/such/route');
    expect(statuses([await hit(), await hit()])).toEqual([404, 404]);
    const refused = await hit();
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(2);
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
    const again = await hit();
    expect(again.status).toBe(404);
    expect(rateHeaders(again)).toMatchObject({ limit: '2', remaining: '1' });
  });
});

describe('what is not limited', () => {
  it('leaves health, readiness and the API description alone, and sends no limit headers there', async () => {
    const parley = await parleyWith({ PARLEY_RATE_LIMIT_IP_PER_MINUTE: '1' });
    for (const path of ['/healthz', '/readyz', '/openapi.json', '/docs', '/healthz', '/openapi.json']) {
      const response = await parley.request('GET', path);
      expect(response.status, path).toBeLessThan(400);
      expect(response.headers.get('x-ratelimit-limit'), path).toBeNull();
    }
    expect((await parley.request('GET', '/no/such/route')).status).toBe(404);
    expect((await parley.request('GET', '/no/such/route')).status).toBe(429);
  });

  it('turns a limit off with 0', async () => {
    const parley = await parleyWith({ PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: '0', PARLEY_RATE_LIMIT_IP_PER_MINUTE: '1' });
    const site = await parley.newSite({ allowGuests: true });
    const responses: ApiResponse[] = [];
    for (let i = 0; i < 7; i++) responses.push(await guestPost(parley, site.site_id));
    expect(statuses(responses)).toEqual(Array(7).fill(201));
    expect(responses[0].headers.get('x-ratelimit-limit')).toBeNull();
  });
});

describe('browsers on other origins', () => {
  it('can read a 429 and its headers, and their CORS preflights are not counted', async () => {
    const parley = await parleyWith({ PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: '1', PARLEY_RATE_LIMIT_IP_PER_MINUTE: '1' });
    const site = await parley.newSite({ allowGuests: true });
    const origin = 'https://blog.example.com';
    for (let i = 0; i < 3; i++) {
      const preflight = await parley.request('OPTIONS', '/v1/comments', { headers: { origin, 'access-control-request-method': 'POST' } });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('x-ratelimit-limit')).toBeNull();
    }
    const post = () =>
      parley.request('POST', '/v1/comments', { headers: { origin }, body: { thread_url: pageUrl(), site_id: site.site_id, content: 'hi', author_name: 'Guest' } });
    expect((await post()).status).toBe(201);
    const refused = await post();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
    const exposed = refused.headers.get('access-control-expose-headers')!.split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['Retry-After', 'X-RateLimit-Remaining', 'RateLimit-Policy', 'RateLimit']));
  });
});

describe('refused credentials', () => {
  it('count under the IP limit, so keys cannot be guessed at leisure', async () => {
    const parley = await parleyWith({ PARLEY_RATE_LIMIT_IP_PER_MINUTE: '2' });
    const guess = () => parley.request('GET', '/api/sites', { token: 'sk_guess' });
    const first = await guess();
    expect(first.status).toBe(401);
    expect(rateHeaders(first)).toMatchObject({ limit: '2', remaining: '1', policy: '"ip";q=2;w=60' });
    expect((await guess()).status).toBe(401);
    const third = await guess();
    expect(third.status).toBe(429);
    expect(third.body.code).toBe('rate_limited');
  });
});
