import { createHmac, randomUUID } from 'node:crypto';
import { verify as verifyGithubStyle } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { sleep, startReceiver, subscribe, WEBHOOK_TEST_ENV, waitForLog, type Behaviour, type Receiver } from '../../test/receiver.ts';
import { verifyWebhookSignature } from '@parley/webhooks';

let parley: TestParley;
const receivers: Receiver[] = [];

beforeAll(async () => {
  parley = await startParley(WEBHOOK_TEST_ENV);
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await parley.close();
});

async function receiver(behaviour?: Behaviour) {
  const started = await startReceiver(behaviour);
  receivers.push(started);
  return started;
}

/** A fresh site whose webhook points at a new receiver. */
async function subscribedSite(behaviour?: Behaviour, events = ['comment.created', 'comment.deleted']) {
  const site = await parley.newSite();
  const target = await receiver(behaviour);
  const secret = await subscribe(parley, site, target.url, events);
  return { site, target, secret };
}

function comment(site: { site_id: string; api_key: string }, content = 'Hello') {
  return parley.request('POST', '/v1/comments', { token: site.api_key, body: { thread_url: pageUrl(), site_id: site.site_id, content } });
}

describe('a delivery', () => {
  it('carries the specified headers and body, signed so independent verifiers accept it', async () => {
    const { site, target, secret } = await subscribedSite();
    const created = await comment(site, 'Signed and sealed');
    const [delivery] = await target.waitFor(1);

    expect(delivery.headers['content-type']).toBe('application/json');
    expect(delivery.headers['x-service-event']).toBe('comment.created');
    expect(delivery.headers['x-service-delivery']).toMatch(/^del_[0-9a-z]{26}$/);
    expect(delivery.headers['webhook-id']).toBe(delivery.headers['x-service-delivery']);
    expect(delivery.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(delivery.body).toEqual({
      event: 'comment.created',
      site_id: site.site_id,
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: {
        comment: {
          id: created.body.id,
          thread_url: created.body.thread_url,
          author_name: created.body.author_name,
          content: 'Signed and sealed',
          content_html: '<p>Signed and sealed</p>\n',
          mentions: [],
          status: 'published',
          parent_id: null,
          created_at: created.body.created_at,
        },
      },
    });

    // GitHub's X-Hub-Signature-256 is the same sha256=<hex HMAC of the raw body> scheme.
    expect(await verifyGithubStyle(secret, delivery.raw, delivery.headers['x-service-signature'] as string)).toBe(true);
    expect(new Webhook(secret).verify(delivery.raw, delivery.headers as Record<string, string>)).toEqual(delivery.body);
    expect(verifyWebhookSignature(delivery.raw, secret, delivery.headers['x-service-signature'] as string)).toBe(true);
    expect(verifyWebhookSignature(`${delivery.raw} `, secret, delivery.headers['x-service-signature'] as string)).toBe(false);
    expect(verifyWebhookSignature(delivery.raw, `${secret}x`, delivery.headers['x-service-signature'] as string)).toBe(false);
    expect(verifyWebhookSignature(delivery.raw, secret, 'sha256=00')).toBe(false);
    expect(verifyWebhookSignature(delivery.raw, secret, undefined)).toBe(false);
  });

  it('is signed with a secret the owner chose, too (Standard Webhooks in its raw-key form)', async () => {
    const { site, target } = await subscribedSite();
    const secret = 'an-owner-chosen-secret-of-some-length';
    await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { webhook_secret: secret } });
    await comment(site);
    const [delivery] = await target.waitFor(1);
    expect(await verifyGithubStyle(secret, delivery.raw, delivery.headers['x-service-signature'] as string)).toBe(true);
    expect(new Webhook(secret, { format: 'raw' }).verify(delivery.raw, delivery.headers as Record<string, string>)).toEqual(delivery.body);
  });

  it('is signed with a whsec_ secret that is not base64 (a UUID): both headers verify, the Standard Webhooks one with the raw key', async () => {
    const { site, target } = await subscribedSite();
    const secret = `whsec_${randomUUID()}`;
    expect((await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { webhook_secret: secret } })).status).toBe(200);
    await comment(site);
    const [delivery] = await target.waitFor(1);
    const signature = delivery.headers['x-service-signature'] as string;
    // Specification part 6.3: HMAC-SHA256 of the raw body keyed with the secret as given, hex, after sha256=.
    expect(signature).toBe(`sha256=${createHmac('sha256', secret).update(delivery.raw).digest('hex')}`);
    expect(await verifyGithubStyle(secret, delivery.raw, signature)).toBe(true);
    expect(verifyWebhookSignature(delivery.raw, secret, signature)).toBe(true);
    expect(new Webhook(secret, { format: 'raw' }).verify(delivery.raw, delivery.headers as Record<string, string>)).toEqual(delivery.body);
  });

  it('is retried on the schedule with the same delivery id, then marked failed', async () => {
    const { site, target } = await subscribedSite(() => 500);
    await comment(site);
    const attempts = await target.waitFor(4);
    expect(new Set(attempts.map((a) => a.headers['x-service-delivery'])).size).toBe(1);
    expect(new Set(attempts.map((a) => a.raw)).size).toBe(1);
    [100, 200, 300].forEach((delay, i) => expect(attempts[i + 1].at - attempts[i].at).toBeGreaterThanOrEqual(delay));
    const [logged] = await waitForLog(parley, site, (d) => d[0]?.state === 'failed');
    expect(logged.id).toBe(attempts[0].headers['x-service-delivery']);
    expect(logged.next_attempt_at).toBeNull();
    expect(logged.attempts.map((a: any) => [a.number, a.status_code, a.error])).toEqual([
      [1, 500, 'unexpected_status'],
      [2, 500, 'unexpected_status'],
      [3, 500, 'unexpected_status'],
      [4, 500, 'unexpected_status'],
    ]);
    await sleep(500);
    expect(target.received).toHaveLength(4);
  });

  it('succeeds on a later attempt and shows every attempt in the log', async () => {
    const { site, target } = await subscribedSite((i) => (i < 2 ? 503 : 200));
    await comment(site);
    await target.waitFor(3);
    const [logged] = await waitForLog(parley, site, (d) => d[0]?.state === 'succeeded');
    expect(logged.attempts.map((a: any) => a.status_code)).toEqual([503, 503, 200]);
    expect(logged.attempts[2].error).toBeNull();
    for (const attempt of logged.attempts) {
      expect(attempt.at).toMatch(/Z$/);
      expect(attempt.duration_ms).toBeGreaterThanOrEqual(0);
    }
  });

  it('times out a receiver that never answers and retries it', async () => {
    const { site, target } = await subscribedSite((i) => (i === 0 ? 'hang' : 200));
    await comment(site);
    const [first, second] = await target.waitFor(2);
    expect(second.headers['x-service-delivery']).toBe(first.headers['x-service-delivery']);
    expect(second.at - first.at).toBeGreaterThanOrEqual(2_000 + 100);
    const [logged] = await waitForLog(parley, site, (d) => d[0]?.state === 'succeeded');
    expect(logged.attempts[0]).toMatchObject({ status_code: null, error: 'timeout' });
    expect(logged.attempts[0].duration_ms).toBeGreaterThanOrEqual(1_990);
    expect(logged.attempts[0].duration_ms).toBeLessThan(4_000);
  });

  it('does not follow a redirect: a 3xx is a failed attempt', async () => {
    const elsewhere = await receiver();
    const { site, target } = await subscribedSite(() => ({ status: 307, headers: { location: elsewhere.url } }));
    await comment(site);
    await target.waitFor(4);
    const [logged] = await waitForLog(parley, site, (d) => d[0]?.state === 'failed');
    expect(logged.attempts.map((a: any) => [a.status_code, a.error])).toEqual(Array(4).fill([307, 'redirect_not_followed']));
    expect(elsewhere.received).toHaveLength(0);
  });

  it('goes out as soon as the change commits, not at the next poll (250 ms)', async () => {
    const { site, target } = await subscribedSite();
    const delays: number[] = [];
    for (let i = 0; i < 9; i += 1) {
      expect((await comment(site, `Right away ${i}`)).status).toBe(201);
      const answeredAt = Date.now();
      const [delivery] = (await target.waitFor(i + 1)).slice(i);
      delays.push(delivery.at - answeredAt);
      // Off the poll's rhythm: the next call starts at a random point of the 250 ms period.
      await sleep(Math.random() * 250);
    }
    // A median, so one slow moment of a shared machine does not decide; the poll alone gives ~125 ms.
    expect(delays.sort((a, b) => a - b)[4]).toBeLessThan(60);
  });

  it('is only sent for subscribed events', async () => {
    const { site, target } = await subscribedSite(undefined, ['comment.deleted']);
    const created = await comment(site);
    await parley.request('PATCH', `/v1/comments/${created.body.id}`, { token: site.api_key, body: { content: 'edited' } });
    await parley.request('DELETE', `/v1/comments/${created.body.id}`, { token: site.api_key });
    const [only] = await target.waitFor(1);
    expect(only.body.event).toBe('comment.deleted');
    await sleep(600);
    expect(target.received).toHaveLength(1);
    const log = await parley.request('GET', `/api/sites/${site.site_id}/webhooks/deliveries`, { token: site.api_key });
    expect(log.body.deliveries.map((d: any) => d.event)).toEqual(['comment.deleted']);
  });

  it('is not made for a site without a webhook URL', async () => {
    const site = await parley.newSite();
    await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { webhook_events: ['comment.created'] } });
    await comment(site);
    const log = await parley.request('GET', `/api/sites/${site.site_id}/webhooks/deliveries`, { token: site.api_key });
    expect(log.body).toEqual({ deliveries: [], total: 0, page: 1 });
  });
});

describe('the delivery log', () => {
  it('pages newest first and filters by event and state', async () => {
    const { site, target } = await subscribedSite();
    const first = await comment(site, 'one');
    await comment(site, 'two');
    await comment(site, 'three');
    await parley.request('DELETE', `/v1/comments/${first.body.id}`, { token: site.api_key });
    await target.waitFor(4);
    await waitForLog(parley, site, (d) => d.length === 4 && d.every((x) => x.state === 'succeeded'));
    const path = `/api/sites/${site.site_id}/webhooks/deliveries`;
    const get = (query: string) => parley.request('GET', `${path}${query}`, { token: site.api_key });

    const page1 = await get('?limit=3');
    expect(page1.body.total).toBe(4);
    expect(page1.body.page).toBe(1);
    expect(page1.body.deliveries.map((d: any) => d.event)).toEqual(['comment.deleted', 'comment.created', 'comment.created']);
    const page2 = await get('?limit=3&page=2');
    expect(page2.body.deliveries).toHaveLength(1);
    expect(page2.body.page).toBe(2);
    const everything = [...page1.body.deliveries, ...page2.body.deliveries];
    expect(everything.map((d) => d.created_at)).toEqual([...everything.map((d) => d.created_at)].sort().reverse());
    expect(new Set(everything.map((d) => d.id)).size).toBe(4);
    expect(everything[0]).toEqual({
      id: expect.stringMatching(/^del_/),
      event: 'comment.deleted',
      state: 'succeeded',
      test: false,
      attempts: [{ number: 1, at: expect.any(String), status_code: 200, duration_ms: expect.any(Number), error: null }],
      next_attempt_at: null,
      created_at: expect.any(String),
      body: target.received.find((received) => received.headers['webhook-id'] === everything[0].id)!.raw,
    });

    expect((await get('?event=comment.deleted')).body.total).toBe(1);
    expect((await get('?state=succeeded')).body.total).toBe(4);
    expect((await get('?state=failed')).body).toEqual({ deliveries: [], total: 0, page: 1 });
    for (const bad of ['?limit=0', '?limit=101', '?page=0', '?state=lost', '?event=comment.exploded']) {
      const response = await get(bad);
      expect(response.status, bad).toBe(400);
      expect(response.body.code).toBe('validation_failed');
    }
  });

  it("is the site's own: other accounts get 404, non-admin keys 403", async () => {
    const { site } = await subscribedSite();
    const stranger = await parley.newSite();
    for (const [method, path] of [
      ['GET', `/api/sites/${site.site_id}/webhooks/deliveries`],
      ['POST', `/api/sites/${site.site_id}/webhooks/test`],
      ['POST', `/api/sites/${site.site_id}/webhooks/deliveries/del_01aaaaaaaaaaaaaaaaaaaaaaaa/redeliver`],
    ]) {
      expect((await parley.request(method, path, { token: stranger.api_key })).status).toBe(404);
      expect((await parley.request(method, path)).status).toBe(401);
    }
    const key = await parley.request('POST', '/api/keys', { token: site.api_key, body: { role: 'integration' } });
    const log = await parley.request('GET', `/api/sites/${site.site_id}/webhooks/deliveries`, { token: key.body.api_key });
    expect(log.status).toBe(403);
  });
});

describe('redelivery', () => {
  it('queues a finished delivery again under the same id; a pending one is 409, an unknown one 404', async () => {
    const { site, target } = await subscribedSite();
    await comment(site);
    const [first] = await target.waitFor(1);
    const id = first.headers['x-service-delivery'];
    await waitForLog(parley, site, (d) => d[0]?.state === 'succeeded');
    const path = `/api/sites/${site.site_id}/webhooks/deliveries/${id}/redeliver`;
    const queued = await parley.request('POST', path, { token: site.api_key });
    expect(queued.status).toBe(200);
    expect(queued.body).toMatchObject({ id, state: 'pending' });
    const [, again] = await target.waitFor(2);
    expect(again.headers['x-service-delivery']).toBe(id);
    expect(again.raw).toBe(first.raw);
    const [logged] = await waitForLog(parley, site, (d) => d[0]?.state === 'succeeded' && d[0].attempts.length === 2);
    expect(logged.attempts.map((a: any) => a.number)).toEqual([1, 2]);

    const hanging = await subscribedSite(() => 'hang');
    await comment(hanging.site);
    const [stuck] = await hanging.target.waitFor(1);
    const busy = await parley.request('POST', `/api/sites/${hanging.site.site_id}/webhooks/deliveries/${stuck.headers['x-service-delivery']}/redeliver`, {
      token: hanging.site.api_key,
    });
    expect(busy.status).toBe(409);
    const foreign = await parley.request('POST', `/api/sites/${hanging.site.site_id}/webhooks/deliveries/${id}/redeliver`, { token: hanging.site.api_key });
    expect(foreign.status).toBe(404);
  });
});

describe('the test delivery', () => {
  it('sends a signed sample marked test and answers with the attempt', async () => {
    const { site, target, secret } = await subscribedSite();
    const response = await parley.request('POST', `/api/sites/${site.site_id}/webhooks/test`, { token: site.api_key, body: { event: 'user.banned' } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ event: 'user.banned', state: 'succeeded', test: true, next_attempt_at: null });
    expect(response.body.attempts).toEqual([{ number: 1, at: expect.any(String), status_code: 200, duration_ms: expect.any(Number), error: null }]);
    const [sample] = target.received;
    expect(sample.headers['x-service-delivery']).toBe(response.body.id);
    expect(sample.body).toMatchObject({ event: 'user.banned', site_id: site.site_id, test: true, data: { user: { id: expect.any(String) }, ban_type: 'ban' } });
    expect(new Webhook(secret).verify(sample.raw, sample.headers as Record<string, string>)).toEqual(sample.body);

    const plain = await parley.request('POST', `/api/sites/${site.site_id}/webhooks/test`, { token: site.api_key });
    expect(plain.body.event).toBe('comment.created');
  });

  it('reports a failing receiver and does not retry the sample', async () => {
    const { site, target } = await subscribedSite(() => 500);
    const response = await parley.request('POST', `/api/sites/${site.site_id}/webhooks/test`, { token: site.api_key });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ state: 'failed', attempts: [{ status_code: 500, error: 'unexpected_status' }] });
    await sleep(600);
    expect(target.received).toHaveLength(1);
  });

  it('needs a webhook URL (409) and the plan (403)', async () => {
    const bare = await parley.newSite();
    expect((await parley.request('POST', `/api/sites/${bare.site_id}/webhooks/test`, { token: bare.api_key })).status).toBe(409);
    const free = await parley.newSite({ plan: 'free' });
    const refused = await parley.request('POST', `/api/sites/${free.site_id}/webhooks/test`, { token: free.api_key });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('plan_required');
  });
});
