/**
 * `npm test`: the whole suite on SQLite, then again on PostgreSQL when PARLEY_TEST_DATABASE_URL is
 * set. Redis-dependent tests run when PARLEY_TEST_REDIS_URL is set. Arguments go to Vitest
 * (`npm test -- src/comments`).
 *
 * The browser tests drive the Chromium that test/chromium.ts finds (PARLEY_CHROMIUM, else the usual
 * install locations); without one, or with PARLEY_SKIP_BROWSER=1, they are skipped, and the run ends
 * by saying so. They run in the SQLite pass only.
 *
 * Under CI (CI=true) neither server nor the browser may be skipped: a missing variable, a server that
 * does not answer, a missing Chromium or PARLEY_SKIP_BROWSER fails the run before any test starts. Outside CI
 * a variable that is set must work too.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { postgresUrl } from '../src/db/connect.ts';
import { BROWSER_TESTS_SKIPPED_ON_REQUEST, browserSkipRequested, CHROMIUM_MISSING, findChromium, isCi } from '../test/chromium.ts';

const CONNECT_TIMEOUT_MS = 5_000;
const ci = isCi();
const databaseUrl = process.env.PARLEY_TEST_DATABASE_URL || undefined;
const redisUrl = process.env.PARLEY_TEST_REDIS_URL || undefined;
const chromium = findChromium();

async function postgresProblem(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: postgresUrl(url), connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  try {
    await client.connect();
    // The suite creates and drops one database per test server.
    const { rows } = await client.query<{ allowed: boolean }>('select rolcreatedb or rolsuper as allowed from pg_roles where rolname = current_user');
    return rows[0]?.allowed ? null : `the role ${client.user} may not create databases`;
  } catch (error) {
    return error instanceof Error ? error.message || error.constructor.name : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function redisProblem(url: string): Promise<string | null> {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: CONNECT_TIMEOUT_MS, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG' ? null : 'PING did not answer PONG';
  } catch (error) {
    return error instanceof Error ? error.message || error.constructor.name : String(error);
  } finally {
    redis.disconnect();
  }
}

async function preflight(): Promise<string[]> {
  const problems: string[] = [];
  if (databaseUrl) {
    const problem = await postgresProblem(databaseUrl);
    if (problem) problems.push(`PostgreSQL at PARLEY_TEST_DATABASE_URL (${databaseUrl}) is not usable: ${problem}`);
  } else if (ci) {
    problems.push('CI=true but PARLEY_TEST_DATABASE_URL is not set: the PostgreSQL run would be skipped');
  }
  if (redisUrl) {
    const problem = await redisProblem(redisUrl);
    if (problem) problems.push(`Redis at PARLEY_TEST_REDIS_URL (${redisUrl}) is not usable: ${problem}`);
  } else if (ci) {
    problems.push('CI=true but PARLEY_TEST_REDIS_URL is not set: the Redis-dependent tests would be skipped');
  }
  if (chromium.problem) problems.push(chromium.problem);
  return problems;
}

const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}
const totals: Counts = { passed: 0, failed: 0, skipped: 0 };

const BROWSER_TESTS = '**/*.browser.test.ts';

/** Test files that exist for PostgreSQL and Redis: in the PostgreSQL pass, a skip there is a failure. */
const POSTGRES_ONLY = ['test/scale/multi-instance.test.ts'];

interface Report {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: Array<{ name: string; status: string; message: string; assertionResults: Array<{ status: string }> }>;
}

/**
 * Failures the report does not count as failed tests: a test file that failed outside its tests (an
 * import error, a throw at load, a failing beforeAll or afterAll; its tests are counted as skipped,
 * if it got as far as collecting them), or an error outside every file that failed Vitest's run.
 */
function failuresOutsideTests(report: Report, exitCode: number | null): string[] {
  const files = report.testResults
    .filter((file) => file.status === 'failed' && !file.assertionResults.some((test) => test.status === 'failed'))
    .map((file) => `${relative(process.cwd(), file.name)} failed outside its tests: ${file.message || 'see the errors above'}`);
  if (files.length > 0 || report.numFailedTests > 0 || exitCode === 0) return files;
  return [`Vitest exited with ${exitCode ?? 'a signal'} though no test failed: see the errors above`];
}

/** Why the PostgreSQL pass did not really run the PostgreSQL-only files, if it did not. */
function postgresOnlyProblems(report: Report): string[] {
  const filtered = process.argv.length > 2;
  return POSTGRES_ONLY.flatMap((file) => {
    const result = report.testResults.find((entry) => entry.name.endsWith(`/${file}`));
    if (!result) return filtered ? [] : [`${file} did not run in the PostgreSQL pass`];
    const skipped = result.assertionResults.filter((test) => test.status !== 'passed' && test.status !== 'failed').length;
    return skipped > 0 ? [`${file}: ${skipped} tests skipped in the PostgreSQL pass`] : [];
  });
}

/** Runs Vitest once; its JSON report feeds the closing "N passed, N failed" line that CI reads. */
function runSuite(dialect: 'sqlite' | 'postgres'): boolean {
  const env = { ...process.env };
  if (dialect === 'sqlite') delete env.PARLEY_TEST_DATABASE_URL;
  // Each browser test file launches the executable found here rather than searching again.
  if (chromium.executable) env.PARLEY_CHROMIUM = chromium.executable;
  process.stdout.write(`\n=== test suite on ${dialect}${redisUrl ? ' (with Redis)' : ''} ===\n`);
  const report = join(mkdtempSync(join(tmpdir(), 'parley-vitest-')), 'report.json');
  // Pages draw the same whatever the database: the browser tests run in the SQLite pass only, and
  // the server's side of what they do is covered on PostgreSQL by the API tests.
  const pagesOnce = dialect === 'postgres' ? ['--exclude', BROWSER_TESTS] : [];
  const args = [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...pagesOnce, ...process.argv.slice(2)];
  const result = spawnSync(process.execPath, args, { stdio: 'inherit', env });
  if (!existsSync(report)) {
    totals.failed += 1;
    return false;
  }
  const counts: Report = JSON.parse(readFileSync(report, 'utf8'));
  totals.passed += counts.numPassedTests;
  totals.failed += counts.numFailedTests;
  totals.skipped += counts.numPendingTests + counts.numTodoTests;
  const problems = [...failuresOutsideTests(counts, result.status), ...(dialect === 'postgres' ? postgresOnlyProblems(counts) : [])];
  for (const problem of problems) process.stderr.write(`npm test: ${problem}\n`);
  totals.failed += problems.length;
  return result.status === 0 && problems.length === 0;
}

const problems = await preflight();
if (problems.length > 0) {
  for (const problem of problems) process.stderr.write(`npm test: ${problem}\n`);
  process.exit(1);
}
if (!databaseUrl) process.stdout.write('npm test: PARLEY_TEST_DATABASE_URL is not set, so the suite runs on SQLite only\n');
if (chromium.executable) process.stdout.write(`npm test: the browser tests use ${chromium.executable}\n`);
const dialects = databaseUrl ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);
const failed = dialects.filter((dialect) => !runSuite(dialect));
process.stdout.write(`\nnpm test: ${dialects.map((d) => `${d} ${failed.includes(d) ? 'FAILED' : 'passed'}`).join(', ')}\n`);
// Once, at the end where it is seen, rather than once per browser test file and dialect.
if (!chromium.executable) process.stdout.write(`npm test: ${browserSkipRequested() ? BROWSER_TESTS_SKIPPED_ON_REQUEST : CHROMIUM_MISSING}\n`);
process.stdout.write(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
process.exit(failed.length > 0 ? 1 : 0);
