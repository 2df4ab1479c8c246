import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzEndpoints, newStats, startFuzzWorld } from './fuzz.ts';
import type { World } from './world.ts';

/** Kept small for `npm test`; `npm run reliability` runs the same property thousands of times. */
const RUNS = Number(process.env.PARLEY_FUZZ_RUNS ?? 300);

let world: World;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ world, close } = await startFuzzWorld());
});
afterAll(() => close());

describe('every endpoint under adversarial input', () => {
  it(`answers ${RUNS} random and hostile requests with documented statuses and problem+json, no 5xx, no change on failure`, async () => {
    const stats = newStats();
    await fuzzEndpoints(world, stats, RUNS);
    expect(stats.failures).toEqual([]);
    expect(stats.serverErrors).toBe(0);
    expect(stats.badInputs).toBeGreaterThan(RUNS / 3);
    const health = await world.parley.request('GET', '/healthz');
    expect(health.status).toBe(200);
  }, 120_000);
});
