/**
 * `npm test`: the whole suite on SQLite, then again on PostgreSQL when PARLEY_TEST_DATABASE_URL is
 * set. Redis-dependent tests run when PARLEY_TEST_REDIS_URL is set. Arguments go to Vitest
 * (`npm test -- src/comments`).
 *
 * Under CI (CI=true) neither server may be skipped silently: a missing variable or a server that does
 * not answer fails the run before any test starts. Outside CI a variable that is set must work too.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { postgresUrl } from '../src/db/connect.ts';

const CONNECT_TIMEOUT_MS = 5_000;
const ci = /^(1|true|yes)$/i.test(process.env.CI ?? '');
const databaseUrl = process.env.PARLEY_TEST_DATABASE_URL || undefined;
const redisUrl = process.env.PARLEY_TEST_REDIS_URL || undefined;

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
  return problems;
}

const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}
const totals: Counts = { passed: 0, failed: 0, skipped: 0 };

/** Runs Vitest once; its JSON report feeds the closing "N passed, N failed" line that CI reads. */
function runSuite(dialect: 'sqlite' | 'postgres'): boolean {
  const env = { ...process.env };
  if (dialect === 'sqlite') delete env.PARLEY_TEST_DATABASE_URL;
  process.stdout.write(`\n=== test suite on ${dialect}${redisUrl ? ' (with Redis)' : ''} ===\n`);
  const report = join(mkdtempSync(join(tmpdir(), 'parley-vitest-')), 'report.json');
  const args = [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)];
  const result = spawnSync(process.execPath, args, { stdio: 'inherit', env });
  if (existsSync(report)) {
    const counts = JSON.parse(readFileSync(report, 'utf8'));
    totals.passed += counts.numPassedTests;
    totals.failed += counts.numFailedTests;
    totals.skipped += counts.numPendingTests + counts.numTodoTests;
  } else {
    totals.failed += 1;
  }
  return result.status === 0;
}

const problems = await preflight();
if (problems.length > 0) {
  for (const problem of problems) process.stderr.write(`npm test: ${problem}\n`);
  process.exit(1);
}
if (!databaseUrl) process.stdout.write('npm test: PARLEY_TEST_DATABASE_URL is not set, so the suite runs on SQLite only\n');
const dialects = databaseUrl ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);
const failed = dialects.filter((dialect) => !runSuite(dialect));
process.stdout.write(`\nnpm test: ${dialects.map((d) => `${d} ${failed.includes(d) ? 'FAILED' : 'passed'}`).join(', ')}\n`);
process.stdout.write(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
process.exit(failed.length > 0 ? 1 : 0);
