import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { build } from 'esbuild';
import pg from 'pg';
import { postgresUrl } from '../src/db/connect.ts';
import { freshPostgresDatabase } from '../test/helper.ts';
import { casesFor, type Case, type Server } from './cases.ts';
import type { AfterWriteCost, AfterWriteJob } from './after-write.ts';
import { caseInstructions, limiterInstructions, valgrindInstalled, type CaseInstructions, type InstructionCost } from './instructions.ts';
import type { InProcessCost, LimiterJob } from './limiter.ts';
import { ROOT, startBaseline, startParley, type CannedResponse, type Service } from './processes.ts';
import { preparePgbench, runPgbench, type PgbenchResult, type PgbenchScript } from './pgbench.ts';
import { seed, type Seeded } from './seed.ts';
import { transferCases, type TransferResult } from './transfer.ts';
import { deliveryRate, queueDeliveries, startReceiver } from './webhooks.ts';
import { fanoutRate, queueFanout } from './notifications.ts';
import { formatIndexUse, indexUse } from '../scripts/index-use.ts';

const { values: args } = parseArgs({
  options: {
    full: { type: 'boolean', default: false },
    duration: { type: 'string', default: '10' },
    'baseline-duration': { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '50' },
    reseed: { type: 'boolean', default: false },
    only: { type: 'string' },
    /** Writes a CPU profile of each Parley process to bench/results/profiles. */
    profile: { type: 'boolean', default: false },
    /** Only the rate limiter's cost on list-100: in process, the A/B under load, and in instructions (valgrind). */
    limiter: { type: 'boolean', default: false },
    /**
     * Only the rate limiter's store on list-100: limits counted in Redis (REDIS_URL) against the same
     * limits counted in process, on SQLite (on PostgreSQL the cached list needs Redis to serve at all).
     */
    'limiter-store': { type: 'boolean', default: false },
    /** Only these cases (comma-separated), each counted in instructions per request under valgrind. */
    instructions: { type: 'string' },
    /** With --instructions: keep each case's callgrind dumps in this folder (for callgrind_annotate). */
    'callgrind-dir': { type: 'string' },
    /**
     * Only the PostgreSQL write cases (post-comment, vote, react), each beside pgbench's rate for the
     * same row writes on the same server (bench/pgbench.ts); DATABASE_URL and REDIS_URL default to
     * the local servers, and only the threads those cases use are seeded.
     */
    postgres: { type: 'boolean', default: false },
    /** Only the live fan-out case: this many streams on one instance, against a bare SSE server. */
    live: { type: 'string' },
  },
});
if (args.live) {
  const { liveCases } = await import('./live.ts');
  const results = await liveCases(Number(args.live));
  for (const r of results) {
    process.stdout.write(
      `live fan-out, ${r.service}: ${r.received}/${r.streams} streams got the comment; p50 ${r.p50Ms.toFixed(0)} ms, p99 ${r.p99Ms.toFixed(0)} ms, ` +
        `max ${r.maxMs.toFixed(0)} ms; peak RSS ${r.peakRssMb.toFixed(0)} MB\n`,
    );
  }
  const parley = results.find((r) => r.service === 'parley')!;
  process.stdout.write(`goal p99 < 1000 ms and RSS < 300 MB: ${parley.p99Ms < 1000 && parley.peakRssMb < 300 ? 'met' : 'NOT met'}\n`);
  process.exit(0);
}
if (args['limiter-store'] && (!process.env.REDIS_URL || process.env.DATABASE_URL?.startsWith('postgres'))) {
  throw new Error('--limiter-store compares limits counted in Redis with limits counted in process on SQLite: set REDIS_URL, and no PostgreSQL DATABASE_URL');
}
if (args.postgres) {
  process.env.DATABASE_URL ||= 'postgres://127.0.0.1:5432/test';
  process.env.REDIS_URL ||= 'redis://127.0.0.1:6379';
  args.only ??= 'post-comment,vote,react';
}
/** The pgbench script matching each write case: the same row writes at the minimum. */
const PGBENCH_OF: Record<string, PgbenchScript> = { 'post-comment': 'comment', vote: 'vote', react: 'vote' };
/** `transfer` names the transfer cases, as does any of their ids. */
const TRANSFER_IDS = ['transfer', 'import-disqus', 'export-parley', 'import-deep-xml'];
const ONLY = args.only?.split(',');
const RUN_TRANSFER = !args.limiter && !args['limiter-store'] && !args.instructions && (!ONLY || ONLY.some((id) => TRANSFER_IDS.includes(id)));
/** The transfer cases make databases of their own: naming only them seeds nothing. */
const TRANSFER_ALONE = RUN_TRANSFER && ONLY !== undefined && ONLY.every((id) => TRANSFER_IDS.includes(id));
const DURATION = Number(args.duration);
const BASELINE_DURATION = Number(args['baseline-duration']);
const WARMUP = Number(args.warmup);
const CONNECTIONS = Number(args.connections);
const REQUESTS_PER_SOCKET = 1000;
const started = Date.now();
const log = (line: string) => process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}\n`);

interface Measurement {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

interface WebhookResult {
  id: string;
  title: string;
  deliveriesPerSecond: number;
  delivered: number;
  peakRssMb: number;
  target: string;
  met: boolean | null;
  load1: number;
}

interface CaseResult extends Measurement {
  id: string;
  title: string;
  baseline: Measurement | null;
  ratio: number | null;
  /** On PostgreSQL, a write case's pgbench rate for the same row writes, run right after it, and Parley's share of it. */
  pgbench: PgbenchResult | null;
  pgbenchRatio: number | null;
  /** For a vote or reaction on PostgreSQL: pgbench running the vote's own write statement on Parley's schema (see bench/pgbench.ts, `vote-schema`). */
  pgbenchSchema: PgbenchResult | null;
  peakRssMb: number;
  target: string;
  met: boolean | null;
  load1: number;
  /** For a case compared with another (compareWith): its share of that one's rate, the two in turn on one server. */
  share: Share | null;
}

/** One autocannon run against `base`. */
/** `first`: the number of the first request (two loads at once number theirs apart, so that none repeats another's). */
async function load(base: string, spec: Case, seconds: number, connections = CONNECTIONS, first = 0): Promise<Measurement> {
  let n = first;
  const fixed = spec.request(first);
  const result = await autocannon({
    url: base,
    connections,
    duration: seconds,
    // Parley closes a keep-alive socket after 1,000 requests (answering 503 to any sent on it after
    // that), as browsers expect; autocannon would not reconnect by itself.
    reconnectRate: REQUESTS_PER_SOCKET,
    requests: [
      spec.variable
        ? { setupRequest: (request) => ({ ...request, ...spec.request(n++) }) }
        : { method: fixed.method, path: fixed.path, headers: fixed.headers, body: fixed.body },
    ],
  });
  return {
    requestsPerSecond: result.requests.total / (result.duration || seconds),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/**
 * Run between the warm-up and the measured run. On PostgreSQL: ANALYZE, as autovacuum does within a
 * minute of a table growing by a tenth. The warm-up is the first write to tables the seed left empty
 * (the mail outbox, the spam signals): a statement planned on an empty table's statistics can walk
 * every row once the table is full, as no server in steady state does.
 */
let settle: () => Promise<void> = async () => undefined;

/** Warm-up, then the measured run. */
async function measure(base: string, spec: Case, seconds: number, connections = CONNECTIONS, first = 0): Promise<Measurement> {
  if (WARMUP > 0) await load(base, spec, WARMUP, connections, first);
  await settle();
  return load(base, spec, seconds, connections, first + 10_000_000);
}

/**
 * The write cases of --postgres again, on two instances sharing the database and Redis: each
 * instance gets half of the connections, both loaded at once; their summed rate against one
 * instance's (measured seconds before with all the connections).
 */
async function twoInstances(cases: Case[], results: Map<string, CaseResult>, env: Record<string, string>): Promise<InstancesResult[]> {
  const written = cases.filter((c) => PGBENCH_OF[c.id] && results.has(c.id));
  if (written.length === 0) return [];
  const instances = [await startParley(env), await startParley(env)];
  try {
    const measured: InstancesResult[] = [];
    for (const spec of written) {
      const halves = await Promise.all(instances.map((parley, i) => measure(parley.url, spec, DURATION, CONNECTIONS / 2, (i + 1) * 100_000_000)));
      const refused = halves[0].non2xx + halves[1].non2xx + halves[0].errors + halves[1].errors;
      if (refused > 0) throw new Error(`${spec.id} on two instances: ${refused} requests failed or were refused`);
      const requestsPerSecond = halves[0].requestsPerSecond + halves[1].requestsPerSecond;
      const one = results.get(spec.id)!.requestsPerSecond;
      log(`${spec.id} on two instances: ${requestsPerSecond.toFixed(0)} req/s (${halves.map((h) => h.requestsPerSecond.toFixed(0)).join(' + ')}), ${(requestsPerSecond / one).toFixed(2)}× one instance's ${one.toFixed(0)}`);
      measured.push({ id: spec.id, requestsPerSecond, oneInstance: one, times: requestsPerSecond / one, load1: loadavg()[0] });
    }
    return measured;
  } finally {
    await Promise.all(instances.map((parley) => parley.stop()));
  }
}

interface InstancesResult {
  id: string;
  requestsPerSecond: number;
  oneInstance: number;
  /** The two instances' rate over one's (target ≥ 1.6 on a machine with the cores for it). */
  times: number;
  load1: number;
}

/** One request of the case, kept as the baseline's canned answer. */
async function capture(base: string, spec: Case): Promise<CannedResponse> {
  const request = spec.request(1_000_000_000);
  const response = await fetch(base + request.path, { method: request.method, headers: request.headers, body: request.body });
  const body = await response.text();
  if (!response.ok) throw new Error(`${spec.id}: Parley answered ${response.status}: ${body}`);
  return { method: request.method, route: spec.route, url: request.path, status: response.status, contentType: response.headers.get('content-type') ?? 'application/json', body };
}

/** Everything the seed depends on; a change to any of it seeds anew. */
function seedFingerprint(full: boolean): string {
  const hash = createHash('sha256').update(String(full));
  const files = ['bench/seed.ts', 'src/db/migrate.ts', ...readdirSync(join(ROOT, 'src/db/migrations')).map((f) => `src/db/migrations/${f}`)];
  for (const file of files.sort()) hash.update(file).update(readFileSync(join(ROOT, file)));
  return hash.digest('hex').slice(0, 16);
}

interface Copy {
  url: string;
  drop(): Promise<void>;
}

interface Database extends Copy {
  seeded: Seeded;
  /** A new database as seeded, untouched by the cases run so far: each webhook case starts from it. */
  copy(): Promise<Copy>;
}

async function onPostgres(serverUrl: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(statement).finally(() => admin.end());
}

/**
 * SQLite: the seeded file is kept in bench/.cache (keyed by the seed's fingerprint) and each run
 * works on a copy, so runs start from the same data. PostgreSQL: a fresh database on the server of
 * DATABASE_URL, seeded every run and dropped after it.
 */
async function prepareDatabase(): Promise<Database> {
  const databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl?.startsWith('postgres')) {
    // With the user name filled in as Parley does (pg alone would send none when USER is unset).
    const serverUrl = postgresUrl(databaseUrl);
    const database = await freshPostgresDatabase(serverUrl, 'parley_bench');
    const name = new URL(database.url).pathname.slice(1);
    log(`seeding PostgreSQL database ${name}`);
    const seeded = await seed({ databaseUrl: database.url, full: args.full!, writesOnly: args.postgres, log });
    await preparePgbench(database.url, seeded.voteTargets);
    // Statistics and the visibility map as autovacuum leaves a database in steady state: without
    // them the planner scans whole tables for the list queries of a freshly seeded one.
    await onPostgres(database.url, 'vacuum analyze');
    // Kept as seeded (a template) before any case writes to the database.
    await onPostgres(serverUrl, `create database ${name}_seeded template ${name}`);
    // Index use is read after the cases: what seeding read does not count.
    await onPostgres(database.url, 'select pg_stat_reset()');
    const copies: string[] = [`${name}_seeded`];
    const copy = async () => {
      const copyName = `${name}_${copies.length}`;
      await onPostgres(serverUrl, `create database ${copyName} template ${name}_seeded`);
      copies.push(copyName);
      const url = new URL(database.url);
      url.pathname = `/${copyName}`;
      return { url: url.href, drop: () => onPostgres(serverUrl, `drop database if exists ${copyName} with (force)`) };
    };
    const drop = async () => {
      for (const copyName of copies) await onPostgres(serverUrl, `drop database if exists ${copyName} with (force)`);
      await database.drop();
    };
    settle = () => onPostgres(database.url, 'analyze');
    return { url: database.url, seeded, copy, drop };
  }
  const cacheDir = join(ROOT, 'bench/.cache');
  const key = `seed-${args.full ? 'full' : 'default'}-${seedFingerprint(args.full!)}`;
  const cachedDb = join(cacheDir, `${key}.db`);
  const cachedMeta = join(cacheDir, `${key}.json`);
  if (args.reseed || !existsSync(cachedMeta)) {
    rmSync(cacheDir, { recursive: true, force: true });
    mkdirSync(cacheDir, { recursive: true });
    log(`seeding SQLite (${args.full ? '1,000,000' : 'about 110,000'} comments through the service functions)`);
    const seeded = await seed({ databaseUrl: `sqlite:${cachedDb}`, full: args.full!, log });
    writeFileSync(cachedMeta, JSON.stringify(seeded));
  } else {
    log(`reusing the seeded database ${cachedDb}`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-'));
  let copies = 0;
  const copy = async () => {
    const file = join(dir, `parley-${copies++}.db`);
    copyFileSync(cachedDb, file);
    return { url: `sqlite:${file}`, drop: async () => rmSync(file, { force: true }) };
  };
  const { url } = await copy();
  return { url, seeded: JSON.parse(readFileSync(cachedMeta, 'utf8')), copy, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

/** The limits are on (their code runs on every request) but set so high that no case trips them. */
const UNTRIPPED_LIMITS = {
  PARLEY_RATE_LIMIT_KEY_PER_MINUTE: '1000000000',
  PARLEY_RATE_LIMIT_SESSION_COMMENTS_PER_HOUR: '1000000000',
  PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: '1000000000',
  PARLEY_RATE_LIMIT_IP_PER_MINUTE: '1000000000',
};
const SERVER_ENV: Record<Server, Record<string, string>> = {
  default: UNTRIPPED_LIMITS,
  'no-cache': { ...UNTRIPPED_LIMITS, PARLEY_RESPONSE_CACHE_MB: '0' },
  cold: { ...UNTRIPPED_LIMITS, PARLEY_RESPONSE_CACHE_MB: '0', PARLEY_SUBTREE_CACHE_MB: '0' },
  metrics: { ...UNTRIPPED_LIMITS, PARLEY_METRICS_TOKEN: 'bench-metrics-token-0123456789' },
  // The same limits, counted in process: REDIS_URL emptied.
  'memory-limits': { ...UNTRIPPED_LIMITS, REDIS_URL: '' },
  // Mail on, towards a port where nothing listens: mails are queued and their sending fails at once.
  mail: { ...UNTRIPPED_LIMITS, PARLEY_SMTP_URL: 'smtp://127.0.0.1:9', PARLEY_MAIL_FROM: 'bench@example.com' },
  'no-rate-limits': {
    PARLEY_RATE_LIMIT_KEY_PER_MINUTE: '0',
    PARLEY_RATE_LIMIT_SESSION_COMMENTS_PER_HOUR: '0',
    PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: '0',
    PARLEY_RATE_LIMIT_IP_PER_MINUTE: '0',
  },
};

function describeTarget(spec: Case): string {
  const target = spec.target;
  if (!target) return '—';
  if (target.kind === 'ratio') return `≥ ${target.min * 100} % of baseline`;
  if (target.kind === 'rps') return `≥ ${target.min} req/s`;
  if (target.kind === 'p50') return `p50 ≤ ${target.ms} ms`;
  return `p50 ≤ ${target.factor}× ${target.of}`;
}

function judge(spec: Case, result: Measurement & { ratio: number | null }, results: Map<string, CaseResult>): boolean | null {
  const target = spec.target;
  if (!target) return null;
  // A run whose answers were errors measured something else.
  if (result.non2xx + result.errors > result.requestsPerSecond * DURATION * 0.001) return false;
  if (target.kind === 'ratio') return result.ratio !== null && result.ratio >= target.min;
  if (target.kind === 'rps') return result.requestsPerSecond >= target.min;
  if (target.kind === 'p50') return result.p50 <= target.ms;
  const reference = results.get(target.of);
  return reference ? result.p50 <= reference.p50 * target.factor : null;
}

interface LimiterRun {
  requestsPerSecond: number;
  /** Parley's CPU time per request during the run. */
  cpuMicros: number;
}

interface LimiterCost {
  on: LimiterRun[];
  off: LimiterRun[];
  /** 1 − on/off throughput: the median of the rounds' ratios. */
  cost: number;
  /** 1 − off/on CPU time per request: the same ratio at full load, less dependent on the CPU share each process got. */
  cpuCost: number;
  /** With --limiter only: through `inject` it weighs the headers more than a socket does (BENCHMARKS.md). */
  inProcess: InProcessCost | null;
  /** With --limiter, where valgrind is installed: the cost counted in instructions (bench/instructions.ts). */
  instructions: InstructionCost | null;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Pairs of Parley processes, limits on and off; more with --limiter. */
const LIMITER_PAIRS = args.limiter ? 8 : 3;
/** Timed rounds per pair, each loading both processes in turn. */
const LIMITER_ROUNDS_PER_PAIR = 2;
const LIMITER_SECONDS = 2;

/** One timed load of `parley`, with the CPU time it used. */
async function loadTimed(parley: Service, spec: Case): Promise<LimiterRun> {
  const cpuBefore = (parley.cpuMs() / 1000);
  const measured = await load(parley.url, spec, LIMITER_SECONDS);
  const cpu = (parley.cpuMs() / 1000) - cpuBefore;
  return { requestsPerSecond: measured.requestsPerSecond, cpuMicros: (cpu * 1e6) / (measured.requestsPerSecond * LIMITER_SECONDS) };
}

/**
 * A measurement made inside one process through fastify.inject, free of the network and of load:
 * bench/<name>.ts, bundled as dist/parley.js is and run by plain node (no TypeScript loader in the
 * process), given its job as JSON and printing its result as JSON.
 */
async function inProcess<Result>(name: 'limiter' | 'after-write', job: unknown): Promise<Result> {
  // Beside dist/parley.js, as Parley finds its files (locales, the checkpoint thread) from there (scripts/build.js).
  const script = join(ROOT, `dist/bench-${name}.js`);
  await build({ entryPoints: [join(ROOT, `bench/${name}.ts`)], outfile: script, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning' });
  copyFileSync(join(ROOT, 'src/db/checkpoint-thread.js'), join(ROOT, 'dist/checkpoint-thread.js'));
  return JSON.parse(execFileSync(process.execPath, [script, JSON.stringify(job)], { cwd: ROOT, encoding: 'utf8' })) as Result;
}

/** The limiter's own CPU cost per request (bench/limiter.ts). */
function limiterCostInProcess(list: Case, env: Record<string, string>): Promise<InProcessCost> {
  const job: LimiterJob = { env, onEnv: SERVER_ENV.default, offEnv: SERVER_ENV['no-rate-limits'], request: list.request(0) };
  return inProcess('limiter', job);
}

/** What a read of whole-200 costs right after a vote on one of its replies (bench/after-write.ts). */
async function afterWriteCost(whole: Case, seeded: Seeded, env: Record<string, string>): Promise<AfterWriteCost> {
  const job: AfterWriteJob = { env, keptEnv: SERVER_ENV['no-cache'], coldEnv: SERVER_ENV.cold, read: whole.request(0), voter: seeded.sessions[1] };
  const cost = await inProcess<AfterWriteCost>('after-write', job);
  log(
    `whole-200 read in process: ${cost.unchangedMicros.toFixed(0)} µs with nothing changed, ${cost.afterVoteMicros.toFixed(0)} µs right after ` +
      `a vote on a reply, ${cost.coldMicros.toFixed(0)} µs with nothing kept (medians of ${cost.rounds} rounds)`,
  );
  return cost;
}

const SHARE_ROUNDS = 8;
const SHARE_SECONDS = 3;

interface Share {
  /** The median over the rounds of on's rate ÷ off's, and of off's CPU time per request ÷ on's. */
  rate: number;
  cpu: number;
  /** The case's shareTarget, if it has one. */
  target: number | null;
  on: LimiterRun[];
  off: LimiterRun[];
}

/**
 * A case's share of the same requests with something turned off (`compareWith`: the spam checks).
 * One run of each, a minute apart, read from 75 to 97 % in runs of the same code on this machine.
 * Here the two take turns on one server, 3 s each, each round in the other order than the last;
 * the median of the rounds' ratios is taken, by rate and by CPU time per request. Requests are
 * numbered from `first` on, so that no comment repeats an earlier text.
 */
async function pairedShare(parley: Service, on: Case, off: Case, first: number): Promise<Share> {
  const runs = { on: [] as LimiterRun[], off: [] as LimiterRun[] };
  for (let round = 0; round < SHARE_ROUNDS; round++) {
    const sides = round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
    for (const side of sides) {
      const spec = side === 'on' ? on : off;
      await spec.prepare?.(parley.url);
      const cpuBefore = parley.cpuMs();
      const measured = await load(parley.url, spec, SHARE_SECONDS, CONNECTIONS, (first += 1_000_000));
      const cpuMicros = ((parley.cpuMs() - cpuBefore) * 1000) / (measured.requestsPerSecond * SHARE_SECONDS);
      runs[side].push({ requestsPerSecond: measured.requestsPerSecond, cpuMicros });
    }
  }
  const paired = (ratio: (on: LimiterRun, off: LimiterRun) => number) => median(runs.on.map((run, i) => ratio(run, runs.off[i])));
  return { rate: paired((a, b) => a.requestsPerSecond / b.requestsPerSecond), cpu: paired((a, b) => b.cpuMicros / a.cpuMicros), target: on.shareTarget ?? null, ...runs };
}

/**
 * The rate limiter's cost on list-100. In process with --limiter (see limiterCostInProcess), and under load: a
 * Parley with the limits on (untripped) and one with them off run side by side and are loaded in
 * turn, each round in the other order than the last, so both see the same background load; each
 * round's ratio compares runs seconds apart, and the median of the rounds is taken. Every pair of
 * processes is new, started in the other order than the last: two processes of the same code and
 * configuration can differ by several per cent in throughput for as long as they run (4 % in the
 * median of eight rounds, measured on this machine), so one pair alone cannot show a cost of a few per cent.
 */
async function rateLimitCost(list: Case, env: Record<string, string>): Promise<LimiterCost> {
  const inProcess = args.limiter ? await limiterCostInProcess(list, env) : null;
  if (inProcess) {
    log(`rate limiting in process: ${inProcess.costMicros.toFixed(2)} µs per request (list-100 through inject: ${inProcess.onMicros.toFixed(1)} µs on, ${inProcess.offMicros.toFixed(1)} µs off; median of ${inProcess.rounds} rounds)`);
  }
  // Both servers on one core and autocannon on the other, so that neither server gains from where
  // the scheduler happens to put it.
  const pin = cpus().length >= 2;
  const pinSelf = (cores: string) => execFileSync('taskset', ['-a', '-cp', cores, String(process.pid)], { stdio: 'ignore' });
  // With --limiter-store the side without Redis still limits, counting in process.
  const without = args['limiter-store'] ? 'memory-limits' : 'no-rate-limits';
  const start = (server: Server) => startParley({ ...env, ...SERVER_ENV[server] }, { cpu: pin ? 0 : undefined });
  const runs: LimiterCost = { on: [], off: [], cost: NaN, cpuCost: NaN, inProcess, instructions: null };
  if (pin) pinSelf('1');
  try {
    for (let pair = 0; pair < LIMITER_PAIRS; pair++) {
      const order = pair % 2 === 0 ? (['default', without] as const) : ([without, 'default'] as const);
      const started = new Map<string, Service>();
      try {
        for (const server of order) started.set(server, await start(server));
        const both = { on: started.get('default')!, off: started.get(without)! };
        // Warmed up either way: a process still being optimised is slower whatever its limits.
        await load(both.on.url, list, Math.max(WARMUP, 1));
        await load(both.off.url, list, Math.max(WARMUP, 1));
        for (let round = 0; round < LIMITER_ROUNDS_PER_PAIR; round++) {
          const sides = (pair + round) % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const);
          for (const side of sides) runs[side].push(await loadTimed(both[side], list));
        }
      } finally {
        for (const service of started.values()) await service.stop();
      }
    }
  } finally {
    if (pin) pinSelf(`0-${cpus().length - 1}`);
  }
  runs.cost = 1 - median(runs.on.map((run, i) => run.requestsPerSecond / runs.off[i].requestsPerSecond));
  runs.cpuCost = 1 - median(runs.on.map((run, i) => runs.off[i].cpuMicros / run.cpuMicros));
  const show = (list: LimiterRun[]) => list.map((r) => `${r.requestsPerSecond.toFixed(0)} (${r.cpuMicros.toFixed(1)} µs)`).join(', ');
  if (args['limiter-store']) {
    log(
      `limits counted in Redis: ${((1 - runs.cost) * 100).toFixed(1)} % of list-100's throughput with them counted in process (target ≥ 85 %), ` +
        `${((1 - runs.cpuCost) * 100).toFixed(1)} % by CPU time per request (req/s and CPU µs per request: Redis ${show(runs.on)}; in process ${show(runs.off)})`,
    );
  } else {
    log(`rate limiting under load: ${(runs.cost * 100).toFixed(1)} % of list-100's throughput, ${(runs.cpuCost * 100).toFixed(1)} % by CPU time per request (req/s and CPU µs per request: on ${show(runs.on)}; off ${show(runs.off)})`);
  }
  if (args.limiter && valgrindInstalled()) {
    log('rate limiting in instructions: two Parley processes under callgrind (about 7 minutes)');
    runs.instructions = await limiterInstructions(env, SERVER_ENV.default, SERVER_ENV['no-rate-limits'], list);
    const { cost, onWindows, offWindows, requestsPerWindow } = runs.instructions;
    const counts = (windows: number[]) => windows.map((count) => count.toFixed(0)).join(', ');
    log(`rate limiting in instructions: ${(cost * 100).toFixed(1)} % by the median of paired windows (per request in windows of ${requestsPerWindow}: on ${counts(onWindows)}; off ${counts(offWindows)})`);
  } else if (args.limiter) {
    log('rate limiting in instructions: not counted (valgrind is not installed)');
  }
  return runs;
}

/**
 * With --instructions: each named case on a Parley process of its own, under callgrind, on its own
 * copy of the seeded database, two at a time (a core each); see caseInstructions.
 */
async function countInstructions(all: Case[], ids: string[], database: Database, env: Record<string, string>): Promise<CaseInstructions[]> {
  if (!valgrindInstalled()) throw new Error('--instructions counts under valgrind, which is not installed');
  const specs = ids.map((id) => {
    const spec = all.find((known) => known.id === id);
    if (!spec) throw new Error(`--instructions: there is no case ${id}`);
    return spec;
  });
  log(`instructions per request of ${ids.join(', ')}: Parley under callgrind (about 4 minutes for two cases)`);
  const counted: CaseInstructions[] = [];
  for (let first = 0; first < specs.length; first += 2) {
    const pair = specs.slice(first, first + 2).map(async (spec) => {
      const copy = await database.copy();
      try {
        const keepIn = args['callgrind-dir'] && join(args['callgrind-dir'], spec.id);
        return await caseInstructions({ ...env, DATABASE_URL: copy.url, ...SERVER_ENV[spec.server] }, spec, keepIn || undefined);
      } finally {
        await copy.drop();
      }
    });
    counted.push(...(await Promise.all(pair)));
  }
  for (const { id, perRequest, windows, requestsPerWindow } of counted) {
    log(`${id}: ${perRequest.toFixed(0)} instructions per request (windows of ${requestsPerWindow}: ${windows.map((count) => count.toFixed(0)).join(', ')})`);
  }
  return counted;
}

const QUEUED = 4_000;

/**
 * Webhook delivery: deliveries are queued through the service functions while no Parley runs, then
 * a Parley starts and the receiver times them. Twice: alone, and beside a second site whose receiver
 * never answers.
 */
async function webhookCases(database: Database, env: Record<string, string>): Promise<WebhookResult[]> {
  const fast = await startReceiver('fast');
  const hanging = await startReceiver('hanging');
  const results: WebhookResult[] = [];
  try {
    for (const withHanging of [false, true]) {
      fast.received = 0;
      // Both cases start from the seeded state: the second must not also carry the first's 4,000 deliveries.
      const copy = await database.copy();
      await queueDeliveries(copy.url, database.seeded, fast, QUEUED, withHanging ? { receiver: hanging, count: 500 } : undefined);
      const load1 = loadavg()[0];
      const parley = await startParley({ ...env, DATABASE_URL: copy.url, PARLEY_WEBHOOK_ALLOW_PRIVATE: 'true' }, { profileDir: args.profile ? join(ROOT, 'bench/results/profiles') : undefined });
      const cpuAtStart = parley.cpuMs();
      try {
        const { rate, received } = await deliveryRate(fast, QUEUED, 20);
        const cpuMsPerDelivery = (parley.cpuMs() - cpuAtStart) / received;
        const alone = results[0]?.deliveriesPerSecond;
        const result: WebhookResult = withHanging
          ? { id: 'webhooks-hanging', title: 'the same beside a site whose receiver never answers', deliveriesPerSecond: rate, delivered: received, peakRssMb: parley.peakRssMb(), target: '< 10 % slower than alone', met: alone ? rate >= alone * 0.9 : null, load1 }
          : { id: 'webhooks-fast', title: 'webhook deliveries/s to a receiver answering at once', deliveriesPerSecond: rate, delivered: received, peakRssMb: parley.peakRssMb(), target: '≥ 1000 deliveries/s', met: rate >= 1000, load1 };
        results.push(result);
        log(`${result.id}: ${rate.toFixed(0)} deliveries/s (${received} of ${QUEUED} delivered), ${cpuMsPerDelivery.toFixed(3)} CPU ms per delivery, peak RSS ${result.peakRssMb.toFixed(0)} MB`);
      } finally {
        if (withHanging) await hanging.close();
        await parley.stop();
        await copy.drop();
      }
    }
  } finally {
    await fast.close();
    await hanging.close();
  }
  return results;
}

const FOLLOWERS = 10_000;

/**
 * Notification fan-out: a comment in a thread with 10,000 followers is written through the service
 * functions while no Parley runs, then a Parley starts and its worker tells them all; timed from
 * the moment it is ready to the last notification.
 */
async function notifyFanout(database: Database, env: Record<string, string>): Promise<WebhookResult> {
  const copy = await database.copy();
  try {
    const commentId = await queueFanout(copy.url, database.seeded, FOLLOWERS);
    const load1 = loadavg()[0];
    const parley = await startParley({ ...env, DATABASE_URL: copy.url }, { profileDir: args.profile ? join(ROOT, 'bench/results/profiles') : undefined });
    const since = performance.now();
    try {
      const { rate, made } = await fanoutRate(copy.url, commentId, FOLLOWERS, since, 60);
      log(`notify-fanout: ${rate.toFixed(0)} notifications/s (${made} of ${FOLLOWERS} made), peak RSS ${parley.peakRssMb().toFixed(0)} MB`);
      return { id: 'notify-fanout', title: 'notifications/s made by the worker for a comment in a thread with 10,000 followers', deliveriesPerSecond: rate, delivered: made, peakRssMb: parley.peakRssMb(), target: '≥ 1000 notifications/s', met: made === FOLLOWERS && rate >= 1000, load1 };
    } finally {
      await parley.stop();
    }
  } finally {
    await copy.drop();
  }
}

async function main(): Promise<void> {
  const loadAtStart = loadavg();
  log(`load average before the run: ${loadAtStart.map((l) => l.toFixed(2)).join(' ')} on ${cpus().length} cores`);
  // npm start runs dist/ only while it is newer than src/ (else the sources, through tsx): the
  // bundle is made anew so that the code measured is the checkout's, run as it is deployed.
  execFileSync(process.execPath, [join(ROOT, 'scripts/build.js')], { cwd: ROOT, stdio: 'inherit' });
  if (TRANSFER_ALONE) {
    const transfer = await transferCases(args.full ? 1_000_000 : 200_000, log);
    report([], [], null, { loadAtStart, seeded: null, idleRssMb: NaN, afterWrite: null, instructions: [], transfer, instances: [] });
    return;
  }
  const database = await prepareDatabase();
  const { seeded } = database;
  log(`data: ${seeded.comments} comments, ${seeded.votes} votes (seeded in ${seeded.seconds.toFixed(0)} s)`);
  const all = casesFor(seeded);
  const cases = args.limiter || args['limiter-store'] || args.instructions ? [] : all.filter((c) => !args.only || args.only.split(',').includes(c.id));
  const baseEnv = { DATABASE_URL: database.url, ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}) };
  const results = new Map<string, CaseResult>();
  const baselines = new Map<string, Measurement>();
  const specFile = join(mkdtempSync(join(tmpdir(), 'parley-baseline-')), 'responses.json');
  let idleRssMb = NaN;
  let webhooks: WebhookResult[] = [];
  let transfer: TransferResult[] = [];
  let limiterCost: LimiterCost | null = null;
  let afterWrite: AfterWriteCost | null = null;
  let instructions: CaseInstructions[] = [];
  let instances: InstancesResult[] = [];
  try {
    for (const server of ['default', 'metrics', 'mail', 'no-cache', 'cold'] as const) {
      const group = cases.filter((c) => c.server === server);
      if (group.length === 0) continue;
      const parley = await startParley({ ...baseEnv, ...SERVER_ENV[server] }, { profileDir: args.profile ? join(ROOT, 'bench/results/profiles') : undefined });
      if (server === 'default') idleRssMb = parley.peakRssMb();
      let baseline: Service | null = null;
      try {
        const own = group.filter((c) => !c.baselineOf);
        if (own.length > 0) baseline = await startBaseline(await Promise.all(own.map((c) => capture(parley.url, c))), specFile);
        for (const spec of group) {
          await spec.prepare?.(parley.url);
          const load1 = loadavg()[0];
          parley.resetPeakRss();
          const measured = await measure(parley.url, spec, DURATION);
          const peakRssMb = parley.peakRssMb();
          let reference = spec.baselineOf ? (baselines.get(spec.baselineOf) ?? null) : null;
          if (!spec.baselineOf && baseline) {
            reference = await measure(baseline.url, spec, BASELINE_DURATION);
            baselines.set(spec.id, reference);
          }
          const ratio = reference ? measured.requestsPerSecond / reference.requestsPerSecond : null;
          const script = database.url.startsWith('postgres') ? PGBENCH_OF[spec.id] : undefined;
          const pgbench = script ? await runPgbench(database.url, script, CONNECTIONS, DURATION) : null;
          const pgbenchRatio = pgbench ? measured.requestsPerSecond / pgbench.transactionsPerSecond : null;
          if (pgbench) log(`${spec.id}: pgbench (${script} script, ${CONNECTIONS} clients) ${pgbench.transactionsPerSecond.toFixed(0)} tps, latency ${pgbench.latencyMs.toFixed(1)} ms; Parley ${(pgbenchRatio! * 100).toFixed(0)} % of it`);
          const pgbenchSchema = script === 'vote' ? await runPgbench(database.url, 'vote-schema', CONNECTIONS, DURATION) : null;
          if (pgbenchSchema) {
            log(`${spec.id}: pgbench (the vote's own write statement on Parley's tables) ${pgbenchSchema.transactionsPerSecond.toFixed(0)} tps; Parley ${((measured.requestsPerSecond / pgbenchSchema.transactionsPerSecond) * 100).toFixed(0)} % of it`);
          }
          const compared = spec.compareWith ? results.get(spec.compareWith) : undefined;
          const offSpec = spec.compareWith ? group.find((c) => c.id === spec.compareWith) : undefined;
          const share = compared && offSpec ? await pairedShare(parley, spec, offSpec, 100_000_000) : null;
          if (share) {
            const runs = (list: LimiterRun[]) => list.map((r) => `${r.requestsPerSecond.toFixed(0)} (${r.cpuMicros.toFixed(0)} µs)`).join(', ');
            log(`${spec.id}: ${(share.rate * 100).toFixed(1)} % of ${offSpec!.id}'s rate, ${(share.cpu * 100).toFixed(1)} % by CPU time per request, medians of ${SHARE_ROUNDS} rounds in turn (req/s and CPU per request: ${spec.id} ${runs(share.on)}; ${offSpec!.id} ${runs(share.off)})`);
          }
          const result: CaseResult = { id: spec.id, title: spec.title, ...measured, baseline: reference, ratio, pgbench, pgbenchRatio, pgbenchSchema, peakRssMb, target: describeTarget(spec), met: null, load1, share };
          result.met = judge(spec, result, results);
          results.set(spec.id, result);
          const latencyOf = spec.target?.kind === 'p50' ? results.get(spec.target.of) : undefined;
          const unmetered = spec.server === 'metrics' || spec.server === 'mail' ? results.get(spec.baselineOf!) : undefined;
          if (unmetered) log(`${spec.id}: ${((1 - measured.requestsPerSecond / unmetered.requestsPerSecond) * 100).toFixed(1)} % fewer requests a second than ${unmetered.id} without ${spec.server}`);
          log(
            `${spec.id}: ${measured.requestsPerSecond.toFixed(0)} req/s, p50 ${measured.p50} ms, p99 ${measured.p99} ms` +
              (latencyOf && latencyOf.p50 > 0 ? ` (p50 ${(measured.p50 / latencyOf.p50).toFixed(1)}× ${latencyOf.id}'s)` : '') +
              (reference ? `, baseline ${reference.requestsPerSecond.toFixed(0)} req/s (${(ratio! * 100).toFixed(0)} %)` : '') +
              `, peak RSS ${peakRssMb.toFixed(0)} MB${measured.non2xx ? `, ${measured.non2xx} non-2xx` : ''}`,
          );
        }
      } finally {
        await baseline?.stop();
        await parley.stop();
      }
    }
    if (database.url.startsWith('postgres') && cases.length > 0) {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const use = await indexUse(client).finally(() => client.end());
      log(`index use over the cases:\n${formatIndexUse(use)}`);
    }
    if (args.postgres) instances = await twoInstances(cases, results, { ...baseEnv, ...SERVER_ENV.default });
    const list = (args.limiter || args['limiter-store'] ? all : cases).find((c) => c.id === 'list-100');
    if (list) limiterCost = await rateLimitCost(list, baseEnv);
    const whole = cases.find((c) => c.id === 'whole-200-miss');
    if (whole) afterWrite = await afterWriteCost(whole, seeded, baseEnv);
    if (!args.limiter && !args['limiter-store'] && !args.instructions && (!args.only || args.only.includes('webhooks'))) webhooks = await webhookCases(database, baseEnv);
    if (!args.limiter && !args['limiter-store'] && !args.instructions && (!args.only || args.only.includes('notify-fanout'))) webhooks.push(await notifyFanout(database, baseEnv));
    if (RUN_TRANSFER) transfer = await transferCases(args.full ? 1_000_000 : 200_000, log);
    if (args.instructions) instructions = await countInstructions(all, args.instructions.split(','), database, baseEnv);
  } finally {
    await database.drop();
  }
  report([...results.values()], webhooks, limiterCost, { loadAtStart, seeded, idleRssMb, afterWrite, instructions, transfer, instances });
}

interface RunContext {
  loadAtStart: number[];
  /** Null when only the transfer cases ran. */
  seeded: Seeded | null;
  idleRssMb: number;
  afterWrite: AfterWriteCost | null;
  instructions: CaseInstructions[];
  transfer: TransferResult[];
  instances: InstancesResult[];
}

function report(results: CaseResult[], webhooks: WebhookResult[], limiterCost: LimiterCost | null, context: RunContext): void {
  const rateLimitCost = limiterCost?.cost ?? null;
  const header = ['case', 'req/s', 'p50 ms', 'p99 ms', 'baseline req/s', 'ratio', 'peak RSS MB', 'target', 'met', 'load'];
  const rows = results.map((r) => [
    r.id,
    r.requestsPerSecond.toFixed(0),
    String(r.p50),
    String(r.p99),
    r.baseline ? r.baseline.requestsPerSecond.toFixed(0) : '—',
    r.ratio === null ? '—' : `${(r.ratio * 100).toFixed(0)} %`,
    r.peakRssMb.toFixed(0),
    r.target,
    r.met === null ? '' : r.met ? 'yes' : 'NO',
    r.load1.toFixed(1),
  ]);
  const extra = webhooks.map((w) => [
    w.id,
    `${w.deliveriesPerSecond.toFixed(0)} deliveries/s`,
    '—',
    '—',
    '—',
    '—',
    w.peakRssMb.toFixed(0),
    w.target,
    w.met === null ? '' : w.met ? 'yes' : 'NO',
    w.load1.toFixed(1),
  ]);
  const transferRows = context.transfer.map((t) => [
    t.id,
    `${t.rate.toFixed(t.unit === 's' ? 1 : 0)} ${t.unit}`,
    '—',
    '—',
    Number.isNaN(t.baselineRate) ? '—' : t.baselineRate.toFixed(0),
    Number.isNaN(t.ratio) ? '—' : `${(t.ratio * 100).toFixed(0)} %`,
    t.peakRssMb.toFixed(0),
    t.target,
    t.met ? 'yes' : 'NO',
    t.load1.toFixed(1),
  ]);
  extra.push(...transferRows);
  const all = [header, ...rows, ...extra];
  const widths = header.map((_, i) => Math.max(...all.map((row) => row[i].length)));
  const line = (row: string[]) => `| ${row.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  process.stdout.write(`\n${line(header)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n${[...rows, ...extra].map(line).join('\n')}\n`);
  for (const r of results.filter((result) => result.pgbench)) {
    process.stdout.write(
      `\n${r.id} on PostgreSQL: ${r.requestsPerSecond.toFixed(0)}/s, ${(r.pgbenchRatio! * 100).toFixed(0)} % of pgbench's ${r.pgbench!.transactionsPerSecond.toFixed(0)} tps ` +
        `for the same row writes (target ≥ 50 %: ${r.pgbenchRatio! >= 0.5 ? 'met' : 'NOT met'})` +
        (r.pgbenchSchema ? `; ${((r.requestsPerSecond / r.pgbenchSchema.transactionsPerSecond) * 100).toFixed(0)} % of the ${r.pgbenchSchema.transactionsPerSecond.toFixed(0)} tps of its write statement alone on Parley's tables` : ''),
    );
  }
  for (const r of results.filter((result) => result.share)) {
    const { rate, cpu, target } = r.share!;
    process.stdout.write(
      `\n${r.id}: ${(rate * 100).toFixed(1)} % of the rate with the spam checks off` +
        (target === null ? '' : ` (target ≥ ${target * 100} %: ${rate >= target ? 'met' : 'NOT met'})`) +
        `, ${(cpu * 100).toFixed(1)} % by CPU time per request; medians of ${SHARE_ROUNDS} rounds in turn on one server`,
    );
  }
  const rssOk = [...results, ...webhooks].every((r) => r.peakRssMb <= 200);
  process.stdout.write(
    `\nrate limiting costs ${rateLimitCost === null ? 'n/a' : `${(rateLimitCost * 100).toFixed(1)} %`} of list-100 throughput (target < 5 %; ` +
      (limiterCost
        ? `median of ${limiterCost.on.length} alternating rounds in ${LIMITER_PAIRS} pairs of processes; by CPU time per request ${(limiterCost.cpuCost * 100).toFixed(1)} %; ` +
          (limiterCost.inProcess
            ? `in process ${limiterCost.inProcess.costMicros.toFixed(2)} µs per request, ${((limiterCost.inProcess.costMicros / median(limiterCost.off.map((r) => r.cpuMicros))) * 100).toFixed(1)} % of the CPU time of a list-100 request without limits`
            : 'in process with --limiter') +
          (limiterCost.instructions ? `; by instructions ${(limiterCost.instructions.cost * 100).toFixed(1)} %` : '') +
          ')'
        : 'not run)') +
      (context.afterWrite
        ? `\nwhole-200 read in process (CPU per request): ${context.afterWrite.unchangedMicros.toFixed(0)} µs with nothing changed, ` +
          `${context.afterWrite.afterVoteMicros.toFixed(0)} µs right after a vote on a reply, ${context.afterWrite.coldMicros.toFixed(0)} µs with nothing kept`
        : '') +
      context.instances.map((i) => `\n${i.id} on two instances: ${i.requestsPerSecond.toFixed(0)}/s, ${i.times.toFixed(2)}× one instance's ${i.oneInstance.toFixed(0)}/s (target ≥ 1.6× with the cores for it)`).join('') +
      `\npeak RSS ≤ 200 MB in every request and webhook case: ${rssOk ? 'yes' : 'NO'} (Parley idle after start: ${context.idleRssMb.toFixed(0)} MB)` +
      `\nload average at start ${context.loadAtStart.map((l) => l.toFixed(2)).join(' ')}; "load" column: 1-minute load before each case\n`,
  );
  const date = new Date().toISOString().replace(/:/g, '-').replace(/\..*/, '');
  const file = join(ROOT, 'bench/results', `${date}.json`);
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
        machine: { cores: cpus().length, cpu: cpus()[0]?.model, node: process.version, loadAverageAtStart: context.loadAtStart },
        database: process.env.DATABASE_URL?.startsWith('postgres') ? 'postgres' : 'sqlite',
        redis: Boolean(process.env.REDIS_URL),
        settings: { connections: CONNECTIONS, duration: DURATION, baselineDuration: BASELINE_DURATION, warmup: WARMUP },
        seed: context.seeded && { comments: context.seeded.comments, votes: context.seeded.votes, seconds: context.seeded.seconds },
        idleRssMb: context.idleRssMb,
        rateLimitCost,
        rateLimitRuns: limiterCost,
        afterWrite: context.afterWrite,
        instructions: context.instructions,
        cases: results,
        webhooks,
        transfer: context.transfer,
        instances: context.instances,
        seconds: (Date.now() - started) / 1000,
      },
      null,
      2,
    )}\n`,
  );
  log(`results written to ${file}`);
}

await main();
