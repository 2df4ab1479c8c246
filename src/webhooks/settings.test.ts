import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { freshDatabaseUrl, pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { startReceiver, subscribe, WEBHOOK_TEST_ENV, waitForLog } from '../../test/receiver.ts';

let parley: TestParley;
let site: { account_id: string; site_id: string; api_key: string };
const receiverUrl = 'http://127.0.0.1:9/hooks';

beforeAll(async () => {
  parley = await startParley(WEBHOOK_TEST_ENV);
  site = await parley.newSite();
});
afterAll(() => parley.close());

const patch = (body: unknown, target = site) =>
  parley.request('PATCH', `/api/sites/${target.site_id}`, { token: target.api_key, body });

describe('webhook settings', () => {
  it('generates a whsec_ secret when a URL is set without one, shows it in full once, masked after', async () => {
    const set = await patch({ webhook_url: receiverUrl, webhook_events: ['comment.created', 'comment.created', 'user.banned'] });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ webhook_url: receiverUrl, webhook_events: ['comment.created', 'user.banned'] });
    const secret: string = set.body.generated_webhook_secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    expect(() => new Webhook(secret)).not.toThrow();
    expect(set.body.webhook_secret).toBe(`whsec_…${secret.slice(-4)}`);

    const read = await parley.request('GET', `/api/sites/${site.site_id}`, { token: site.api_key });
    expect(read.body.webhook_secret).toBe(`whsec_…${secret.slice(-4)}`);
    expect(read.body).not.toHaveProperty('generated_webhook_secret');
    const again = await patch({ webhook_events: ['comment.deleted'] });
    expect(again.body).not.toHaveProperty('generated_webhook_secret');
    expect(again.body.webhook_secret).toBe(`whsec_…${secret.slice(-4)}`);
  });

  it('never echoes a chosen secret, and null asks for a new generated one', async () => {
    const chosen = 'my-own-signing-secret-1234';
    const set = await patch({ webhook_secret: chosen });
    expect(set.status).toBe(200);
    expect(JSON.stringify(set.body)).not.toContain(chosen);
    expect(set.body.webhook_secret).toBe('…1234');
    const rotated = await patch({ webhook_secret: null });
    expect(rotated.body.generated_webhook_secret).toMatch(/^whsec_/);
  });

  it('refuses unknown events, bad URLs and weak secrets with 400 validation_failed', async () => {
    for (const [body, path] of [
      [{ webhook_events: ['comment.created', 'comment.exploded'] }, 'body/webhook_events/1'],
      [{ webhook_url: 'ftp://example.com/hooks' }, 'body/webhook_url'],
      [{ webhook_url: 'not a url' }, 'body/webhook_url'],
      [{ webhook_url: 'https://user:pw@example.com/hooks' }, 'body/webhook_url'],
      [{ webhook_secret: 'short' }, 'body/webhook_secret'],
      [{ webhook_secret: 'a secret with spaces in it' }, 'body/webhook_secret'],
      [{ webhook_secret: 'ünïcödé-secret-of-some-length' }, 'body/webhook_secret'],
      [{ webhook_secret: 'tab\tseparated-secret-1234' }, 'body/webhook_secret'],
      [{ webhook_secret: 'x'.repeat(201) }, 'body/webhook_secret'],
    ] as const) {
      const response = await patch(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.code).toBe('validation_failed');
      expect(response.body.errors[0].path).toBe(path);
    }
  });

  it('accepts any secret of 16 to 200 printable ASCII characters, whsec_ followed by something not base64 too', async () => {
    for (const secret of [`whsec_${randomUUID()}`, 'whsec_not*base64*at*all!!', randomUUID(), '!"#$%&\'()*+,-./0123456789:;<=>?@[\\]^`{|}~', 'x'.repeat(200)]) {
      const response = await patch({ webhook_secret: secret });
      expect(response.status, secret).toBe(200);
      expect(response.body.webhook_secret).toBe(`${secret.startsWith('whsec_') ? 'whsec_' : ''}…${secret.slice(-4)}`);
    }
  });

  it('shows no more of a chosen secret with underscores than a whsec_ prefix and its last four characters', async () => {
    for (const [secret, masked] of [
      ['my_very_long_and_secret_value', '…alue'],
      ['whsec_a_uuid_or_anything_else', 'whsec_…else'],
    ]) {
      const response = await patch({ webhook_secret: secret });
      expect(response.status).toBe(200);
      expect(response.body.webhook_secret).toBe(masked);
      const read = await parley.request('GET', `/api/sites/${site.site_id}`, { token: site.api_key });
      expect(read.body.webhook_secret).toBe(masked);
    }
  });

  it('needs the publisher plan: 403 plan_required on free', async () => {
    const free = await parley.newSite({ plan: 'free' });
    const response = await patch({ webhook_url: receiverUrl }, free);
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('plan_required');
    const business = await parley.newSite({ plan: 'business' });
    expect((await patch({ webhook_url: receiverUrl }, business)).status).toBe(200);
  });

  it('is for admin keys of the site only', async () => {
    const stranger = await parley.newSite();
    const foreign = await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: stranger.api_key, body: { webhook_url: receiverUrl } });
    expect(foreign.status).toBe(404);
    const moderatorKey = await parley.request('POST', '/api/keys', { token: site.api_key, body: { role: 'moderator' } });
    const moderator = await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: moderatorKey.body.api_key, body: { webhook_url: receiverUrl } });
    expect(moderator.status).toBe(403);
  });
});

describe('private targets, without PARLEY_WEBHOOK_ALLOW_PRIVATE', () => {
  it('refuses loopback, private, link-local and multicast hosts when the URL is set', async () => {
    const strict = await startParley();
    try {
      const own = await strict.newSite();
      for (const url of [
        'http://127.0.0.1:8080/hooks',
        'http://localhost/hooks',
        'http://[::1]/hooks',
        'http://10.1.2.3/hooks',
        'http://192.168.0.10/hooks',
        'http://172.16.5.5/hooks',
        'http://169.254.169.254/latest/meta-data',
        'http://[fe80::1]/hooks',
        'http://[fd00::1]/hooks',
        'http://224.0.0.1/hooks',
        'http://0.0.0.0/hooks',
        'http://[::ffff:127.0.0.1]/hooks',
      ]) {
        const response = await strict.request('PATCH', `/api/sites/${own.site_id}`, { token: own.api_key, body: { webhook_url: url } });
        expect(response.status, url).toBe(400);
        expect(response.body.code).toBe('validation_failed');
        expect(response.body.errors[0].path).toBe('body/webhook_url');
      }
    } finally {
      await strict.close();
    }
  });

  it('refuses IPv6 forms that embed a loopback or private IPv4 address: IPv4-compatible, IPv4-mapped, IPv4-translated, NAT64, 6to4, Teredo', async () => {
    const strict = await startParley();
    try {
      const own = await strict.newSite();
      for (const host of [
        '[::127.0.0.1]',
        '[::10.0.0.1]',
        '[::192.168.1.1]',
        '[::ffff:10.0.0.1]',
        '[::ffff:0:127.0.0.1]',
        '[64:ff9b::127.0.0.1]',
        '[64:ff9b:1::a00:1]',
        '[2002:7f00:1::1]',
        '[2002:c0a8:101::1]',
        '[2001:0:7f00:1::1]',
        '[2001:0:4136:e378:8000:63bf:80ff:fffe]',
      ]) {
        const response = await strict.request('PATCH', `/api/sites/${own.site_id}`, { token: own.api_key, body: { webhook_url: `http://${host}/hooks` } });
        expect(response.status, host).toBe(400);
        expect(response.body.errors[0].path).toBe('body/webhook_url');
      }
    } finally {
      await strict.close();
    }
  });

  it('refuses them again at every attempt, after resolution: the attempt fails with blocked_address', async () => {
    // The URL was accepted while private targets were allowed; the service then restarts without.
    const database = await freshDatabaseUrl();
    const receiver = await startReceiver();
    try {
      const permissive = await startParley({ ...WEBHOOK_TEST_ENV, DATABASE_URL: database.url });
      const own = await permissive.newSite();
      await subscribe(permissive, own, receiver.url, ['comment.created']);
      await permissive.close();

      const strict = await startParley({ PARLEY_WEBHOOK_RETRY_DELAYS: '50ms,50ms,50ms', DATABASE_URL: database.url });
      try {
        await strict.request('POST', '/v1/comments', { token: own.api_key, body: { thread_url: pageUrl(), site_id: own.site_id, content: 'hello' } });
        const [delivery] = await waitForLog(strict, own, (d) => d.length === 1 && d[0].state === 'failed');
        expect(delivery.attempts).toHaveLength(4);
        for (const attempt of delivery.attempts) expect(attempt).toMatchObject({ status_code: null, error: 'blocked_address' });
        expect(receiver.received).toHaveLength(0);
      } finally {
        await strict.close();
      }
    } finally {
      await receiver.close();
      await database.drop();
    }
  });
});
