import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface Service {
  name: string;
  url: string;
  pid: number;
  /** Forgets the peak so far, so the next reading covers only what follows. */
  resetPeakRss(): void;
  /** VmHWM of the process, in MB. */
  peakRssMb(): number;
  /** CPU time (user and system) the process has used so far, in ms: less noisy than rates on a shared machine. */
  cpuMs(): number;
  stop(): Promise<void>;
}

async function waitForHealth(url: string, readyPath: string, child: ChildProcess, output: () => string, seconds: number): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}:\n${output()}`);
    try {
      const response = await fetch(`${url}${readyPath}`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`did not answer ${readyPath} within ${seconds} s:\n${output()}`);
}

const CLOCK_TICKS_PER_SECOND = 100;

const running = new Set<ChildProcess>();
// An interrupted benchmark leaves no server behind.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const child of running) child.kill('SIGKILL');
    process.exit(130);
  });
}

/**
 * Starts a node process and waits until `readyPath` answers; with `wrapper`, node runs under that
 * command (valgrind), which is given longer to start.
 */
export async function startService(name: string, args: string[], env: Record<string, string>, port: number, wrapper: string[] = [], readyPath = '/healthz'): Promise<Service> {
  const [command, ...commandArgs] = [...wrapper, process.execPath, ...args];
  const child = spawn(command, commandArgs, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  await waitForHealth(url, readyPath, child, () => output, wrapper.length > 0 ? 600 : 60);
  const pid = child.pid!;
  return {
    name,
    url,
    pid,
    resetPeakRss: () => writeFileSync(`/proc/${pid}/clear_refs`, '5'),
    peakRssMb: () => {
      const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      return match ? Number(match[1]) / 1024 : NaN;
    },
    cpuMs: () => {
      // utime and stime, fields 14 and 15 of /proc/PID/stat, in clock ticks (100 a second on Linux);
      // the command name (field 2) is in parentheses and may contain spaces.
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND) * 1000;
    },
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * `npm start` for a given database and configuration: the start script of package.json; with
 * `profileDir`, under `--cpu-prof` (the profile is written there when the process stops); with
 * `callgrindFile`, under valgrind's callgrind (see bench/instructions.ts); with `cpu`, on that core
 * only.
 */
export async function startParley(env: Record<string, string>, options: { profileDir?: string; callgrindFile?: string; cpu?: number } = {}): Promise<Service> {
  const port = await freePort();
  const { profileDir, callgrindFile, cpu } = options;
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const pinned = cpu === undefined ? [] : ['taskset', '-c', String(cpu)];
  // Each thread counted on its own: bench/instructions.ts reads the event loop's thread alone.
  const callgrind = callgrindFile ? ['valgrind', '--tool=callgrind', '--separate-threads=yes', `--callgrind-out-file=${callgrindFile}`] : [];
  const start = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.split(' ');
  if (start[0] !== 'node') throw new Error(`package.json's start script no longer runs node: ${start.join(' ')}`);
  // Under callgrind: V8 on one thread, and no full collection of the heap started by a timer or by
  // its growth, so that fewer of them fall unevenly into the counted windows (bench/instructions.ts).
  const counted = callgrindFile ? ['--single-threaded', '--no-memory-reducer', '--initial-old-space-size=1024'] : [];
  const nodeArgs = [...counted, ...profile, ...start.slice(1)];
  // Parley listens before it migrates (src/http/readiness.ts): ready, not merely alive, is when to load it.
  return startService('parley', nodeArgs, { LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...env, PORT: String(port) }, port, [...pinned, ...callgrind], '/readyz');
}

export interface CannedResponse {
  method: string;
  /** Fastify route pattern. */
  route: string;
  /** The exact URL Parley was asked (path and query). */
  url: string;
  status: number;
  contentType: string;
  body: string;
}

/** The stack's own limit: a bare Fastify 5 answering each case's URL with the bytes Parley gave. */
export async function startBaseline(responses: CannedResponse[], specFile: string): Promise<Service> {
  writeFileSync(specFile, JSON.stringify(responses));
  const port = await freePort();
  return startService('baseline', ['bench/baseline.js', specFile, String(port)], {}, port);
}
