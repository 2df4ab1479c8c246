import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, parleysPerTest, startParley, type TestParley } from '../../test/helper.ts';
import { parsePrometheus, sampleValue, type MetricFamily } from '../../test/prometheus.ts';
import { startReceiver, subscribe, WEBHOOK_TEST_ENV, type Receiver } from '../../test/receiver.ts';

const TOKEN = 'metrics-token-for-tests-0123456789';

let parley: TestParley;
let site: { site_id: string; api_key: string };
let receiver: Receiver;

async function scrape(): Promise<MetricFamily[]> {
  const response = await fetch(`${parley.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheus(await response.text());
}

beforeAll(async () => {
  receiver = await startReceiver();
  parley = await startParley({ ...WEBHOOK_TEST_ENV, PARLEY_METRICS_TOKEN: TOKEN, PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: '1' });
  site = await parley.newSite({ allowGuests: true });
  await subscribe(parley, site, receiver.url, ['comment.created']);
});
afterAll(async () => {
  await parley.close();
  await receiver.close();
});

describe('GET /metrics', () => {
  it('counts and times requests by route pattern and status, the values moving as requests are made', async () => {
    const listRoute = { method: 'GET', route: '/v1/comments', status: '200' };
    const before = sampleValue(await scrape(), 'parley_http_requests_total', listRoute) ?? 0;
    const list = `/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent(pageUrl())}`;
    for (let i = 0; i < 3; i++) expect((await parley.request('GET', list)).status).toBe(200);
    expect((await parley.request('GET', '/v1/comments/cmt_nothing')).status).toBe(404);
    const after = await scrape();
    expect(sampleValue(after, 'parley_http_requests_total', listRoute)).toBe(before + 3);
    // The route's pattern, never the URL a client sent: one series however many ids are asked for.
    expect(sampleValue(after, 'parley_http_requests_total', { route: '/v1/comments/:id', status: '404' })).toBe(1);
    expect(sampleValue(after, 'parley_http_request_duration_seconds_count', listRoute)).toBe(before + 3);
    expect(sampleValue(after, 'parley_http_request_duration_seconds_bucket', { ...listRoute, le: '+Inf' })).toBe(before + 3);
    // The first read of the page was built, the next two served from the response cache (which an
    // instance that may miss other instances' writes, PostgreSQL without Redis, does not use).
    const cached = parley.app.db.changes.hearsEveryChange;
    expect(sampleValue(after, 'parley_response_cache_answers_total', { result: 'miss' })).toBeGreaterThanOrEqual(cached ? 1 : 3);
    expect(sampleValue(after, 'parley_response_cache_answers_total', { result: 'hit' })).toBeGreaterThanOrEqual(cached ? 2 : 0);
    expect(sampleValue(after, 'parley_response_cache_hit_ratio')).toEqual(cached ? expect.any(Number) : 0);
    // The process's own metrics come with them.
    expect(sampleValue(after, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(sampleValue(after, 'nodejs_eventloop_lag_seconds')).toBeDefined();
  });

  it('counts rate-limit refusals by limit, and webhook attempts by outcome with the queue behind them', async () => {
    const thread = pageUrl();
    const form = await parley.guestForm(site.site_id);
    const post = () => parley.request('POST', '/v1/comments', { body: { site_id: site.site_id, thread_url: thread, content: 'hello', author_name: 'Guest', ...form } });
    expect((await post()).status).toBe(201);
    expect((await post()).status).toBe(429);
    await receiver.waitFor(1);
    let families = await scrape();
    expect(sampleValue(families, 'parley_rate_limit_refusals_total', { limit: 'guest-comments' })).toBe(1);
    // The queue's gauges are read at most once a second, so they may trail the attempt counter.
    const settled = () => sampleValue(families, 'parley_webhook_attempts_total', { outcome: 'delivered' }) === 1 && sampleValue(families, 'parley_webhook_queue_depth') === 0;
    for (let tries = 0; !settled() && tries < 200; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      families = await scrape();
    }
    expect(sampleValue(families, 'parley_webhook_attempts_total', { outcome: 'delivered' })).toBe(1);
    expect(sampleValue(families, 'parley_webhook_queue_depth')).toBe(0);
    expect(sampleValue(families, 'parley_webhook_queue_oldest_age_seconds')).toBe(0);
  });

  it('shows open live streams and, on PostgreSQL, the pool', async () => {
    const abort = new AbortController();
    const stream = await fetch(`${parley.url}/v1/comments/stream?site_id=${site.site_id}&thread_url=${encodeURIComponent(pageUrl())}`, { signal: abort.signal });
    expect(stream.status).toBe(200);
    const families = await scrape();
    abort.abort();
    expect(sampleValue(families, 'parley_live_streams_open')).toBe(1);
    if (parley.app.db.dialect === 'postgres') {
      expect(sampleValue(families, 'parley_database_pool_connections', { state: 'max' })).toBe(parley.config.databasePoolSize);
      expect(sampleValue(families, 'parley_database_pool_connections', { state: 'busy' })).toBeGreaterThanOrEqual(0);
    } else {
      expect(sampleValue(families, 'parley_database_pool_connections', { state: 'max' })).toBeUndefined();
    }
  });

  it('counts statements the database refused, by error code', async () => {
    await expect(parley.app.db.kysely.selectFrom('no_such_table' as never).selectAll().execute()).rejects.toThrow();
    const families = await scrape();
    const family = families.find((f) => f.name === 'parley_database_query_errors')!;
    expect(family.samples.reduce((sum, sample) => sum + sample.value, 0)).toBeGreaterThanOrEqual(1);
  });

  it('answers only to the token: 401 problem without it or with another credential', async () => {
    const key = await parley.request('GET', '/metrics', { token: site.api_key });
    expect(key).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
    expect(key.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await parley.request('GET', '/metrics')).status).toBe(401);
    expect((await parley.request('GET', '/metrics', { token: `${TOKEN}x` })).status).toBe(401);
    expect((await parley.request('GET', '/metrics', { headers: { authorization: TOKEN } })).status).toBe(401);
  });
});

describe('GET /metrics without PARLEY_METRICS_TOKEN', () => {
  const start = parleysPerTest();

  it('does not exist', async () => {
    const plain = await start();
    expect(await plain.request('GET', '/metrics')).toMatchObject({ status: 404, body: { code: 'not_found' } });
  });
});
