import { describe, expect, it } from 'vitest';
import { pageUrl, parleysPerTest, type TestParley } from '../../test/helper.ts';
import { ConfigError, loadConfig } from '../config.ts';

const parleyWith = parleysPerTest();

function guestPostFrom(parley: TestParley, siteId: string, forwardedFor: string) {
  return parley.request('POST', '/v1/comments', {
    body: { thread_url: pageUrl(), site_id: siteId, content: 'hi', author_name: 'Guest' },
    headers: { 'x-forwarded-for': forwardedFor },
  });
}

describe('the client IP the limits count by', () => {
  it('is the socket address: a forged X-Forwarded-For is ignored without TRUST_PROXY', async () => {
    const parley = await parleyWith({ PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: '2' });
    const site = await parley.newSite({ allowGuests: true });
    const statuses = [];
    for (const forged of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) statuses.push((await guestPostFrom(parley, site.site_id, forged)).status);
    expect(statuses).toEqual([201, 201, 429]);
  });

  it('is the forwarded address when the request comes from a trusted proxy', async () => {
    const parley = await parleyWith({ PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: '1', TRUST_PROXY: '127.0.0.1' });
    const site = await parley.newSite({ allowGuests: true });
    expect((await guestPostFrom(parley, site.site_id, '203.0.113.1')).status).toBe(201);
    expect((await guestPostFrom(parley, site.site_id, '203.0.113.2')).status).toBe(201);
    expect((await guestPostFrom(parley, site.site_id, '203.0.113.1')).status).toBe(429);
  });

  it('is the address the trusted proxy saw, not one the client put in front of it', async () => {
    const parley = await parleyWith({ PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: '1', TRUST_PROXY: '127.0.0.0/8' });
    const site = await parley.newSite({ allowGuests: true });
    expect((await guestPostFrom(parley, site.site_id, '198.51.100.1, 203.0.113.9')).status).toBe(201);
    expect((await guestPostFrom(parley, site.site_id, '198.51.100.2, 203.0.113.9')).status).toBe(429);
  });

  it('cannot be handed to everyone: TRUST_PROXY refuses blanket values', () => {
    for (const blanket of ['true', '*', 'all', '0.0.0.0/0', '::/0', '127.0.0.1,0.0.0.0/0', 'loopback']) {
      expect(() => loadConfig({ TRUST_PROXY: blanket }), blanket).toThrow(ConfigError);
    }
    expect(loadConfig({ TRUST_PROXY: '10.0.0.1, 10.1.0.0/16,::1' }).trustProxy).toEqual(['10.0.0.1', '10.1.0.0/16', '::1']);
  });
});
