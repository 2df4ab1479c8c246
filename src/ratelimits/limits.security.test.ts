import { describe, expect, it } from 'vitest';
import { pageUrl, parleysPerTest, type ApiResponse, type TestParley } from '../../test/helper.ts';

const startParley = parleysPerTest();

function invalidGuestPost(parley: TestParley, siteId: string) {
  return parley.request('POST', '/v1/comments', { body: { thread_url: pageUrl(), site_id: siteId, content: '   ', author_name: 'Guest' } });
}

const count = (responses: ApiResponse[], status: number) => responses.filter((response) => response.status === status).length;

describe('failed comment creations count under the per-IP request limit', () => {
  it('ends a flood of invalid guest posts from one IP in 429 rate_limited with Retry-After, at the default 600 a minute', async () => {
    const parley = await startParley({ PARLEY_RATE_LIMIT_IP_PER_MINUTE: '600', PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: '5' });
    const site = await parley.newSite({ allowGuests: true });
    // Five at a time: a creation holds a count of the guest limit (5) until it has failed.
    const responses: ApiResponse[] = [];
    const flood = async () => {
      while (responses.length < 700) responses.push(await invalidGuestPost(parley, site.site_id));
    };
    await Promise.all(Array.from({ length: 5 }, flood));
    // Posts already under way when the 600th failure was counted still get their 400.
    expect(count(responses, 400)).toBeGreaterThanOrEqual(600);
    expect(count(responses, 400)).toBeLessThan(605);
    const refused = responses.filter((response) => response.status !== 400);
    expect(refused.length).toBeGreaterThan(90);
    for (const response of refused) {
      expect(response.status).toBe(429);
      expect(response.body.code).toBe('rate_limited');
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(response.headers.get('x-ratelimit-limit')).toBe('600');
      expect(response.headers.get('x-ratelimit-remaining')).toBe('0');
    }
    expect(responses.at(-1)!.status).toBe(429);
  });

  it("answer a failed creation with the IP limit's fields, and leave the guest's comment quota whole once the window is over", async () => {
    const parley = await startParley({
      PARLEY_RATE_LIMIT_IP_PER_MINUTE: '3',
      PARLEY_RATE_LIMIT_REQUEST_WINDOW: '2s',
      PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: '5',
      PARLEY_RATE_LIMIT_DRAFT_HEADERS: 'true',
    });
    const site = await parley.newSite({ allowGuests: true });
    const failed: ApiResponse[] = [];
    for (let i = 0; i < 3; i++) failed.push(await invalidGuestPost(parley, site.site_id));
    expect(failed.map((response) => response.status)).toEqual([400, 400, 400]);
    expect(failed.map((response) => response.headers.get('x-ratelimit-remaining'))).toEqual(['2', '1', '0']);
    expect(failed[0].headers.get('ratelimit-policy')).toBe('"ip";q=3;w=2');
    expect(failed[0].headers.get('retry-after')).toBeNull();

    const refused = await invalidGuestPost(parley, site.site_id);
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toMatch(/\(ip\)/);
    // A valid post waits for the IP's window too: the client has used up its requests.
    const valid = () => parley.request('POST', '/v1/comments', { body: { thread_url: pageUrl(), site_id: site.site_id, content: 'hi', author_name: 'Guest' } });
    expect((await valid()).status).toBe(429);

    await new Promise((resolve) => setTimeout(resolve, Number(refused.headers.get('retry-after')) * 1000));
    const created = await valid();
    expect(created.status).toBe(201);
    expect(created.headers.get('ratelimit-policy')).toBe('"guest-comments";q=5;w=3600');
    expect(created.headers.get('x-ratelimit-remaining')).toBe('4');
  });

  it("count a session user's failed creations under their IP's limit too", async () => {
    const parley = await startParley({ PARLEY_RATE_LIMIT_IP_PER_MINUTE: '2', PARLEY_RATE_LIMIT_SESSION_COMMENTS_PER_HOUR: '30' });
    const site = await parley.newSite();
    const token = await parley.signIn(site.api_key, site.site_id, { id: 'ada', name: 'Ada' });
    const invalid = () => parley.request('POST', '/v1/comments', { token, body: { thread_url: pageUrl(), site_id: site.site_id, content: '' } });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await invalid()).status);
    expect(statuses).toEqual([400, 400, 429]);
  });
});
