import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import type { Request } from './cases.ts';
import { startParley } from './processes.ts';

/**
 * Requests before the count starts. Under valgrind V8 keeps optimising for thousands of requests:
 * after 2,000 the count per request still fell from 610,000 to 180,000 over the next 3,500, and
 * after 6,000 it still fell by about 10 % over the next 7,500 (windows of 130,546, 126,898 and
 * 119,080). After 24,000 one process's windows still spread by about 10 %, while the median of
 * six paired windows read 5.1 and 5.2 % in two runs of the same code.
 */
const WARM_UP_REQUESTS = 24_000;
/** Counted windows, and requests in each: see instructionsPerRequest. */
const WINDOWS = 6;
const REQUESTS_PER_WINDOW = 2500;

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

async function send(url: string, { method, path, headers, body }: Request, amount: number): Promise<void> {
  // Enough connections that the server never waits for the next request: what runs on timers while
  // it waits (the webhook worker polls four times a second) would count, and vary with the wall
  // time. With one connection two counts of the same build differed by 6 %, with four by 0.5 %.
  // Parley closes a keep-alive socket after 1,000 requests: autocannon reconnects before that.
  const result = await autocannon({ url: url + path, connections: 4, amount, reconnectRate: 1000, method, headers, body });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`counted run: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
}

/**
 * Instructions per request of a Parley process under valgrind's callgrind, counted in windows of a
 * steady run: after a warm-up, for each window the counters are zeroed, a fixed number of requests
 * is sent, and the counters are dumped. The count does not move with the machine's other load, but
 * the garbage collector's work falls unevenly between windows: windows of 2,500 requests of the
 * same process differ by up to 15 % (the first one after the warm-up more), so a difference of a
 * few per cent between two processes is within the windows' spread, which the result shows. It
 * counts user space only: the kernel's part of a request (the socket reads and writes) is left out.
 */
async function instructionsPerRequest(env: Record<string, string>, request: Request): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-callgrind-'));
  const parley = await startParley(env, { callgrindFile: join(dir, 'callgrind.out') });
  // callgrind_control finds the process by a name that valgrind builds from USER and HOST, so it
  // runs with the server's HOST.
  const control = (option: string) => execFileSync('callgrind_control', [option, String(parley.pid)], { env: { ...process.env, HOST: '127.0.0.1' }, stdio: 'ignore' });
  try {
    await send(parley.url, request, WARM_UP_REQUESTS);
    const windows: number[] = [];
    for (let window = 1; window <= WINDOWS; window++) {
      control('--zero');
      await send(parley.url, request, REQUESTS_PER_WINDOW);
      control('--dump');
      const dump = join(dir, `callgrind.out.${window}`);
      const total = existsSync(dump) ? /^(?:summary|totals):\s+(\d+)/m.exec(readFileSync(dump, 'utf8')) : null;
      if (!total) throw new Error(`callgrind wrote no count to ${dump}`);
      windows.push(Number(total[1]) / REQUESTS_PER_WINDOW);
    }
    return windows;
  } finally {
    await parley.stop();
    rmSync(dir, { recursive: true, force: true });
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
export async function limiterInstructions(env: Record<string, string>, onEnv: Record<string, string>, offEnv: Record<string, string>, request: Request): Promise<InstructionCost> {
  const [onWindows, offWindows] = await Promise.all([instructionsPerRequest({ ...env, ...onEnv }, request), instructionsPerRequest({ ...env, ...offEnv }, request)]);
  const cost = median(onWindows.map((on, window) => on / offWindows[window] - 1));
  return { onPerRequest: median(onWindows), offPerRequest: median(offWindows), cost, onWindows, offWindows, requestsPerWindow: REQUESTS_PER_WINDOW };
}
