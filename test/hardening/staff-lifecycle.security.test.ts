import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type TestParley } from '../helper.ts';
import { LINK_LIFECYCLE, STREAM_LIFECYCLE, teamOf } from './staff-lifecycle.ts';
import { NO_RATE_LIMITS } from './world.ts';

/** A short heartbeat: a stream that loses its access ends within one. */
const HEARTBEAT_MS = 500;

let parley: TestParley;
beforeAll(async () => {
  parley = await startParley({ ...NO_RATE_LIMITS, PARLEY_LIVE_HEARTBEAT: `${HEARTBEAT_MS}ms` });
});
afterAll(() => parley.close());

const CODE_OF: Record<number, string> = { 403: 'forbidden', 404: 'not_found' };

describe('staff links, used after their issuer or target changed', () => {
  it.each(LINK_LIFECYCLE)('%s: %i', async (_name, status, run) => {
    const response = await run(await teamOf(parley));
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    if (status >= 400) {
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body.code).toBe(CODE_OF[status]);
    }
  });
});

describe('staff queue streams, after their holder changed', () => {
  it.each(STREAM_LIFECYCLE)('%s: ends %s', async (_name, ends, run) => {
    const stream = await run(await teamOf(parley));
    try {
      // Two heartbeats and some room for a busy machine: the bound is one heartbeat's check.
      const deadline = Date.now() + 3 * HEARTBEAT_MS + 1000;
      while (!stream.ended && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(stream.ended).toBe(ends);
    } finally {
      stream.close();
    }
  });
});
