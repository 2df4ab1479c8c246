import { describe, expect, it } from 'vitest';
import { pageUrl, parleysPerTest, type TestParley } from '../../test/helper.ts';
import { startReceiver, subscribe, WEBHOOK_TEST_ENV } from '../../test/receiver.ts';
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

/** Requests come from 127.0.0.1, a trusted proxy here, so X-Forwarded-For sets each one's client address. */
const BEHIND_PROXY = { TRUST_PROXY: '127.0.0.1' };

describe('IPv6 clients count as their /64', () => {
  it('shares the guest comment limit across the addresses of one /64, not across two /64s', async () => {
    const parley = await parleyWith({ ...BEHIND_PROXY, PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: '2' });
    const site = await parley.newSite({ allowGuests: true });
    expect((await guestPostFrom(parley, site.site_id, '2001:db8:a:b::1')).status).toBe(201);
    expect((await guestPostFrom(parley, site.site_id, '2001:db8:a:b:ffff:ffff:ffff:ffff')).status).toBe(201);
    const third = await guestPostFrom(parley, site.site_id, '2001:db8:a:b:1234::9');
    expect(third.status).toBe(429);
    expect(third.body.code).toBe('rate_limited');
    expect((await guestPostFrom(parley, site.site_id, '2001:db8:a:c::1')).status).toBe(201);
  });

  it('shares the per-IP request limit across the addresses of one /64, not across two /64s', async () => {
    const parley = await parleyWith({ ...BEHIND_PROXY, PARLEY_RATE_LIMIT_IP_PER_MINUTE: '2' });
    const readFrom = (address: string) => parley.request('GET', '/v1/comments/cmt_unknown', { headers: { 'x-forwarded-for': address } });
    const first = await readFrom('2001:db8:a:b::1');
    expect(first.status).toBe(404);
    expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await readFrom('2001:db8:a:b::2')).headers.get('x-ratelimit-remaining')).toBe('0');
    const refused = await readFrom('2001:db8:a:b:ffff::3');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const elsewhere = await readFrom('2001:db8:a:c::1');
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.headers.get('x-ratelimit-remaining')).toBe('1');
  });

  it('keeps IPv4 clients per address, an IPv4-mapped IPv6 address counting as its IPv4 address', async () => {
    const parley = await parleyWith({ ...BEHIND_PROXY, PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: '1' });
    const site = await parley.newSite({ allowGuests: true });
    expect((await guestPostFrom(parley, site.site_id, '203.0.113.1')).status).toBe(201);
    expect((await guestPostFrom(parley, site.site_id, '::ffff:203.0.113.1')).status).toBe(429);
    expect((await guestPostFrom(parley, site.site_id, '203.0.113.2')).status).toBe(201);
    expect((await guestPostFrom(parley, site.site_id, '::ffff:203.0.113.3')).status).toBe(201);
  });

  it('counts the guests of one /64 as one flagger (one comment.flagged), and of two /64s as two', async () => {
    const receiver = await startReceiver();
    try {
      const parley = await parleyWith({ ...BEHIND_PROXY, ...WEBHOOK_TEST_ENV });
      const site = await parley.newSite({ allowGuests: true });
      await subscribe(parley, site, receiver.url, ['comment.flagged']);
      const comment = await parley.request('POST', '/v1/comments', { token: site.api_key, body: { site_id: site.site_id, thread_url: pageUrl(), content: 'flag me' } });
      const flagFrom = (address: string) =>
        parley.request('POST', `/v1/comments/${comment.body.id}/flag`, { body: { reason: 'spam' }, headers: { 'x-forwarded-for': address } });
      const flagDeliveries = async () =>
        (await parley.request('GET', `/api/sites/${site.site_id}/webhooks/deliveries?event=comment.flagged`, { token: site.api_key })).body.total;
      for (const address of ['2001:db8:a:b::1', '2001:db8:a:b::2', '2001:db8:a:b:ffff::3']) expect((await flagFrom(address)).status).toBe(200);
      expect(await flagDeliveries()).toBe(1);
      expect((await flagFrom('2001:db8:a:c::1')).status).toBe(200);
      expect(await flagDeliveries()).toBe(2);
    } finally {
      await receiver.close();
    }
  });
});
