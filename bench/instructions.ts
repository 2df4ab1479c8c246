import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import type { Case } from './cases.ts';
import { startParley } from './processes.ts';

export interface InstructionCost {
  /** Instructions Parley executed per request, limits on (untripped) and off. */
  onPerRequest: number;
  offPerRequest: number;
  /** The median over the windows of on ÷ off − 1, the n-th window of each process paired. */
  cost: number;
  /** Instructions per request in each window, in the order counted. */
  onWindows: number[];
  offWindows: number[];
  requestsPerWindow: number;
}

export function valgrindInstalled(): boolean {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Sends `amount` requests of the case; a variable one takes its numbers from `next`, so that no
 * request of a process repeats an earlier one (a comment repeating one of the warm-up's texts is a
 * copy to the spam checks, which then read who posted it).
 */
async function send(url: string, spec: Case, amount: number, connections: number, next: () => number): Promise<void> {
  // Parley closes a keep-alive socket after 1,000 requests: autocannon reconnects before that.
  const { method, path, headers, body } = spec.request(0);
  const requests = spec.variable ? [{ setupRequest: (request: object) => ({ ...request, ...spec.request(next()) }) }] : [{ method, path, headers, body }];
  // Under valgrind a queue of 50 writes can take longer than autocannon's 10 s to drain.
  const result = await autocannon({ url, connections, amount, reconnectRate: 1000, timeout: 120, requests });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`counted run: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
}

/** How a count runs: requests before it, then windows of requests each counted on its own. */
interface Counting {
  warmUp: number;
  windows: number;
  perWindow: number;
  connections: number;
}

/**
 * The rate limiter on list-100.
 * - Warm-up: under valgrind V8 keeps optimising for thousands of requests. After 2,000 the count per
 *   request still fell from 610,000 to 180,000 over the next 3,500, and after 6,000 it still fell by
 *   about 10 % over the next 7,500 (windows of 130,546, 126,898 and 119,080). After 24,000 one
 *   process's windows still spread by about 10 %, while the median of six paired windows read 5.1
 *   and 5.2 % in two runs of the same code.
 * - Connections: enough that the server never waits for the next request. What runs on timers while
 *   it waits (the webhook worker polls four times a second) would count, and vary with the wall time.
 *   With one connection two counts of the same build differed by 6 %, with four by 0.5 %.
 */
const LIMITER_COUNTING: Counting = { warmUp: 24_000, windows: 6, perWindow: 2500, connections: 4 };
/**
 * A write under valgrind takes about 40 ms: fewer and smaller windows. The load test's 50
 * connections, so that SQLite's commit groups are as large as under load (with 4 connections a
 * commit served 4 comments instead of about 27, and windows spread by 25 %).
 */
const WRITE_COUNTING: Counting = { warmUp: 3000, windows: 4, perWindow: 1000, connections: 50 };

/**
 * Instructions per request of a Parley process under valgrind's callgrind, counted in windows of a
 * steady run: after a warm-up, for each window the counters are zeroed, a fixed number of requests
 * is sent, and the counters are dumped. The count does not move with the machine's other load, but
 * the garbage collector's work falls unevenly between windows: windows of 2,500 requests of the
 * same process differ by up to 15 % (the first one after the warm-up more), so a difference of a
 * few per cent between two processes is within the windows' spread, which the result shows. It
 * counts user space only: the kernel's part of a request (the socket reads and writes) is left out.
 */
async function instructionsPerRequest(env: Record<string, string>, spec: Case, { warmUp, windows: count, perWindow, connections }: Counting, keepIn?: string): Promise<number[]> {
  if (keepIn) mkdirSync(keepIn, { recursive: true });
  const dir = keepIn ?? mkdtempSync(join(tmpdir(), 'parley-callgrind-'));
  const parley = await startParley(env, { callgrindFile: join(dir, 'callgrind.out') });
  // callgrind_control finds the process by a name that valgrind builds from USER and HOST, so it
  // runs with the server's HOST.
  const control = (option: string) => execFileSync('callgrind_control', [option, String(parley.pid)], { env: { ...process.env, HOST: '127.0.0.1' }, stdio: 'ignore' });
  try {
    await spec.prepare?.(parley.url);
    let sent = 0;
    const next = () => sent++;
    await send(parley.url, spec, warmUp, connections, next);
    const windows: number[] = [];
    for (let window = 1; window <= count; window++) {
      control('--zero');
      await send(parley.url, spec, perWindow, connections, next);
      control('--dump');
      // The event loop's thread (the first): SQLite's checkpoint thread works by the clock, so
      // under valgrind it would weigh more per request than at full speed.
      const dump = join(dir, `callgrind.out.${window}-01`);
      const total = existsSync(dump) ? /^(?:summary|totals):\s+(\d+)/m.exec(readFileSync(dump, 'utf8')) : null;
      if (!total) throw new Error(`callgrind wrote no count to ${dump}`);
      windows.push(Number(total[1]) / perWindow);
    }
    return windows;
  } finally {
    await parley.stop();
    if (!keepIn) rmSync(dir, { recursive: true, force: true });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return Number.isInteger(middle) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[Math.floor(middle)];
}

/**
 * The rate limiter's cost in instructions: two processes, limits on and off, counted side by side.
 * Windows are compared in pairs (the n-th of one process with the n-th of the other, counted over
 * the same stretch of the run) and the median of the pairs is taken, so that a window into which a
 * large collection fell moves one pair and not the result.
 */
export async function limiterInstructions(env: Record<string, string>, onEnv: Record<string, string>, offEnv: Record<string, string>, list: Case): Promise<InstructionCost> {
  const counted = (limits: Record<string, string>) => instructionsPerRequest({ ...env, ...limits }, list, LIMITER_COUNTING);
  const [onWindows, offWindows] = await Promise.all([counted(onEnv), counted(offEnv)]);
  const cost = median(onWindows.map((on, window) => on / offWindows[window] - 1));
  return { onPerRequest: median(onWindows), offPerRequest: median(offWindows), cost, onWindows, offWindows, requestsPerWindow: LIMITER_COUNTING.perWindow };
}

export interface CaseInstructions {
  id: string;
  /** Instructions per request in each window, in the order counted. */
  windows: number[];
  /** The median of the windows after the first. */
  perRequest: number;
  requestsPerWindow: number;
}

/**
 * Instructions per request of one case, on its own Parley process: what a change to a write path
 * saves, counted the same on any host (the rates of writes swing with the host's speed). Besides
 * the requests it counts what the event loop runs by the clock meanwhile (the webhook worker's
 * polls), which under valgrind is more per request than at full speed: compare counts made alike.
 * With `keepIn` its dumps stay there (one per window, `callgrind.out.N-01` the event loop's thread).
 */
export async function caseInstructions(env: Record<string, string>, spec: Case, keepIn?: string): Promise<CaseInstructions> {
  const windows = await instructionsPerRequest(env, spec, WRITE_COUNTING, keepIn);
  return { id: spec.id, windows, perRequest: median(windows.slice(1)), requestsPerWindow: WRITE_COUNTING.perWindow };
}
