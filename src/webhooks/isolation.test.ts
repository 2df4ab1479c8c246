import { afterAll, beforeAll, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { sleep, startReceiver, subscribe, type Receiver } from '../../test/receiver.ts';
import { MAX_IN_FLIGHT_PER_HOST } from './worker.ts';

let parley: TestParley;
let hanging: Receiver;
let healthy: Receiver;

beforeAll(async () => {
  // The specification's own 10 s time-out: a hanging receiver holds each attempt that long.
  parley = await startParley({ PARLEY_WEBHOOK_ALLOW_PRIVATE: 'true' });
  hanging = await startReceiver(() => 'hang');
  healthy = await startReceiver();
});
afterAll(async () => {
  await hanging.close();
  await healthy.close();
  await parley.close();
});

it("delivers other sites' events on time while one receiver hangs with a backlog", async () => {
  const slow = await parley.newSite();
  const fast = await parley.newSite();
  await subscribe(parley, slow, hanging.url, ['comment.created']);
  await subscribe(parley, fast, healthy.url, ['comment.created']);
  const post = (site: { site_id: string; api_key: string }, content: string) =>
    parley.request('POST', '/v1/comments', { token: site.api_key, body: { thread_url: pageUrl(), site_id: site.site_id, content } });

  // A backlog far larger than one poll looks at, all due before any of the other site's events.
  for (let i = 0; i < 150; i += 1) expect((await post(slow, `backlog ${i}`)).status).toBe(201);
  await hanging.waitFor(MAX_IN_FLIGHT_PER_HOST);

  for (let i = 0; i < 5; i += 1) {
    const acknowledged = Date.now();
    await post(fast, `on time ${i}`);
    const [arrived] = (await healthy.waitFor(i + 1, 2_000)).slice(i);
    expect(arrived.body.data.comment.content).toBe(`on time ${i}`);
    expect(arrived.at - acknowledged).toBeLessThan(1_000);
  }
  // The hanging receiver is held to its share: no more attempts towards it than the per-host bound.
  await sleep(300);
  expect(hanging.received).toHaveLength(MAX_IN_FLIGHT_PER_HOST);
});
