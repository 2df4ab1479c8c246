import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley } from '../helper.ts';
import { fuzzEndpoints, newStats } from './fuzz.ts';
import { buildWorld, NO_RATE_LIMITS, type World } from './world.ts';

/** Kept small for `npm test`; `npm run reliability` runs the same property thousands of times. */
const RUNS = Number(process.env.PARLEY_FUZZ_RUNS ?? 300);

let world: World;
beforeAll(async () => {
  world = await buildWorld(await startParley(NO_RATE_LIMITS));
});
afterAll(() => world.parley.close());

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
