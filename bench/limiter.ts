import type { FastifyInstance } from 'fastify';
import type { Request } from './cases.ts';
import { appOf, median, turnNowAndThen } from './in-process.ts';

/** What run.ts passes to this script (bundled and run by plain node: see inProcess there). */
export interface LimiterJob {
  env: Record<string, string>;
  onEnv: Record<string, string>;
  offEnv: Record<string, string>;
  request: Request;
}

export interface InProcessCost {
  /** CPU time of one request through fastify.inject, limits on (untripped) and off: the best round of each. */
  onMicros: number;
  offMicros: number;
  /** Median over the rounds of (on − off), each round timing both back to back. */
  costMicros: number;
  rounds: number;
  requestsPerRound: number;
}

const ROUNDS = 30;
const WARM_UP_REQUESTS = 3000;
const REQUESTS_PER_ROUND = 2000;

async function serve(app: FastifyInstance, request: Request, requests: number): Promise<void> {
  const inject = { method: request.method, url: request.path, headers: request.headers, payload: request.body };
  for (let i = 0; i < requests; i++) {
    const response = await app.inject(inject);
    if (response.statusCode !== 200) throw new Error(`in-process limiter run: ${response.statusCode} ${response.body}`);
    await turnNowAndThen(i);
  }
}

/**
 * The limiter's own cost per request, free of the network and of autocannon: two apps in this
 * process, limits on and off, answer the same request through fastify.inject, timed in turn in
 * short rounds so that both see the same moments of the machine's load. CPU time, not wall time,
 * so a round that was descheduled does not count as slow; still, on a machine whose cores are
 * shared, CPU time per request grows with the contention, and the figure is only as steady as the
 * machine is quiet. inject copies each response header once more than a socket would, so the cost of
 * the limit headers is somewhat overstated here.
 */
async function measure({ env, onEnv, offEnv, request }: LimiterJob): Promise<InProcessCost> {
  const on = await appOf(env, onEnv);
  const off = await appOf(env, offEnv);
  try {
    const round = async (app: FastifyInstance): Promise<number> => {
      const start = process.cpuUsage();
      await serve(app, request, REQUESTS_PER_ROUND);
      const used = process.cpuUsage(start);
      return (used.user + used.system) / REQUESTS_PER_ROUND;
    };
    // Warm-up: both apps' code optimised and the list cached before anything is timed.
    await serve(on, request, WARM_UP_REQUESTS);
    await serve(off, request, WARM_UP_REQUESTS);
    const onRuns: number[] = [];
    const offRuns: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      // Which app goes first alternates, so neither always runs right after a collection of the other's garbage.
      const [first, second] = i % 2 === 0 ? [on, off] : [off, on];
      const a = await round(first);
      const b = await round(second);
      onRuns.push(first === on ? a : b);
      offRuns.push(first === on ? b : a);
    }
    return {
      onMicros: Math.min(...onRuns),
      offMicros: Math.min(...offRuns),
      costMicros: median(onRuns.map((value, i) => value - offRuns[i])),
      rounds: ROUNDS,
      requestsPerRound: REQUESTS_PER_ROUND,
    };
  } finally {
    await on.close();
    await off.close();
  }
}

process.stdout.write(`${JSON.stringify(await measure(JSON.parse(process.argv[2]) as LimiterJob))}\n`);
process.exit(0);
