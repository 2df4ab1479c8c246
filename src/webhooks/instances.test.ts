import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDatabaseUrl, pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { sleep, startReceiver, subscribe, WEBHOOK_TEST_ENV, type Receiver } from '../../test/receiver.ts';

let database: Awaited<ReturnType<typeof freshDatabaseUrl>>;
const instances: TestParley[] = [];
let receiver: Receiver;

beforeAll(async () => {
  database = await freshDatabaseUrl();
  // A generous time-out and a long retry delay: any second request would be a second claim, not a retry.
  const env = { ...WEBHOOK_TEST_ENV, PARLEY_WEBHOOK_TIMEOUT: '10s', PARLEY_WEBHOOK_RETRY_DELAYS: '1h', DATABASE_URL: database.url };
  for (let i = 0; i < 3; i += 1) instances.push(await startParley(env));
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  for (const instance of instances) await instance.close();
  await database.drop();
});

it('sends each delivery once when several instances share the database', async () => {
  const site = await instances[0].newSite();
  await subscribe(instances[0], site, receiver.url, ['comment.created']);
  const count = 60;
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      instances[i % instances.length].request('POST', '/v1/comments', {
        token: site.api_key,
        body: { thread_url: pageUrl(), site_id: site.site_id, content: `comment ${i}` },
      }),
    ),
  );
  await receiver.waitFor(count, 20_000);
  await sleep(500);
  expect(receiver.received).toHaveLength(count);
  expect(new Set(receiver.received.map((r) => r.headers['x-service-delivery'])).size).toBe(count);
  const log = await instances[1].request('GET', `/api/sites/${site.site_id}/webhooks/deliveries?limit=100`, { token: site.api_key });
  expect(log.body.deliveries.map((d: any) => [d.state, d.attempts.length])).toEqual(Array(count).fill(['succeeded', 1]));
});
