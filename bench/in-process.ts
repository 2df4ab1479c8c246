import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';

/**
 * What the in-process measurements (bench/limiter.ts, bench/after-write.ts) share: they are bundled
 * and run by plain node (see inProcess in run.ts), and serve requests through fastify.inject.
 */

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Parley in this process, configured as the benchmark's processes are, plus `own`. */
export const appOf = (env: Record<string, string>, own: Record<string, string>) => buildApp(loadConfig({ ...process.env, ...env, LOG_LEVEL: 'silent', ...own }));

/**
 * To await after the i-th request: inject answers in microtasks alone; without a turn of the event
 * loop now and then, the setImmediate callbacks of its mock sockets pile up (about 10 KB a request)
 * and the heap grows.
 */
export async function turnNowAndThen(i: number): Promise<void> {
  if (i % 10 === 9) await new Promise(setImmediate);
}
