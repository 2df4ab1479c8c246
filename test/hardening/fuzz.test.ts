import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzEndpoints, newStats, startFuzzWorld, type FuzzWorld } from './fuzz.ts';
import type { Limits } from './limit-headers.ts';

/** Kept small for `npm test`; `npm run reliability` runs the same property thousands of times. */
const RUNS = Number(process.env.PARLEY_FUZZ_RUNS ?? 300);

/** Low enough that every policy refuses within a run: the fuzzer sends from one IP, with few keys. */
const LOW_LIMITS: Limits = { keyPerMinute: 50, ipPerMinute: 30, guestCommentsPerHour: 2, sessionCommentsPerHour: 3 };

describe('every endpoint under adversarial input', () => {
  let fuzzing: FuzzWorld;
  beforeAll(async () => {
    fuzzing = await startFuzzWorld();
  });
  afterAll(() => fuzzing.close());

  it(`answers ${RUNS} random and hostile requests with documented statuses and problem+json, no 5xx, no change on failure`, async () => {
    const stats = newStats();
    await fuzzEndpoints(fuzzing, stats, RUNS);
    expect(stats.failures).toEqual([]);
    expect(stats.serverErrors).toBe(0);
    expect(stats.badInputs).toBeGreaterThan(RUNS / 3);
    const health = await fuzzing.world.parley.request('GET', '/healthz');
    expect(health.status).toBe(200);
  }, 120_000);
});

describe('every endpoint under adversarial input with low rate limits', () => {
  let fuzzing: FuzzWorld;
  beforeAll(async () => {
    fuzzing = await startFuzzWorld(LOW_LIMITS);
  });
  afterAll(() => fuzzing.close());

  it(`answers ${RUNS} requests as above, with rate-limit fields that agree with the limits, and 429s that are rate_limited with Retry-After`, async () => {
    const stats = newStats();
    await fuzzEndpoints(fuzzing, stats, RUNS);
    expect(stats.failures).toEqual([]);
    expect(stats.serverErrors).toBe(0);
    // The limits were really reached, and requests still got through besides.
    expect(stats.statuses['429 rate_limited']).toBeGreaterThan(RUNS / 10);
    expect(Object.entries(stats.statuses).filter(([outcome]) => outcome.startsWith('2')).length).toBeGreaterThan(0);
  }, 120_000);
});
