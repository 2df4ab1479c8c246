/**
 * `npm run reliability`: the long soak. The fuzz property of every endpoint thousands of times and
 * repeated SIGKILLs of `parley serve` during write bursts, then one table of figures.
 * PARLEY_SOAK_RUNS (default 5000) and PARLEY_SOAK_CRASHES (default 10) size it;
 * PARLEY_TEST_DATABASE_URL runs it on PostgreSQL.
 */
import { dialectName } from '../helper.ts';
import { crashCycles } from './crash.ts';
import { fuzzEndpoints, newStats, startFuzzWorld } from './fuzz.ts';

const runs = Number(process.env.PARLEY_SOAK_RUNS ?? 5000);
const crashes = Number(process.env.PARLEY_SOAK_CRASHES ?? 10);
const started = Date.now();

const stats = newStats();
const fuzzing = await startFuzzWorld();
try {
  await fuzzEndpoints(fuzzing, stats, runs);
} catch {
  // the broken promise is in stats.failures
} finally {
  await fuzzing.close();
}
const crash = await crashCycles(crashes);

const rows: Array<[string, number]> = [
  ['requests tried', stats.requests],
  ['bad inputs tried (answered 4xx)', stats.badInputs],
  ['5xx seen', stats.serverErrors],
  ['crashes survived (SIGKILL, clean restart)', crash.cleanRestarts],
  ['writes acknowledged before the kills', crash.acknowledged],
  ['acknowledged writes lost', crash.lostComments],
  ['events of acknowledged writes lost', crash.lostEvents],
  ['webhooks of acknowledged writes never delivered', crash.lostDeliveries],
];
const width = Math.max(...rows.map(([name]) => name.length));
process.stdout.write(`\nParley reliability (${dialectName}, ${runs} fuzz runs, ${crashes} kills, ${Math.round((Date.now() - started) / 1000)} s)\n\n`);
process.stdout.write(`| ${'figure'.padEnd(width)} | value |\n|${'-'.repeat(width + 2)}|------:|\n`);
for (const [name, value] of rows) process.stdout.write(`| ${name.padEnd(width)} | ${String(value).padStart(5)} |\n`);
process.stdout.write(`\nanswers: ${JSON.stringify(stats.statuses)}\n`);
for (const failure of stats.failures) process.stdout.write(`\nbroken promise: ${failure}\n`);
const healthy = stats.failures.length === 0 && stats.serverErrors === 0 && crash.lostComments === 0 && crash.lostEvents === 0 && crash.lostDeliveries === 0 && crash.cleanRestarts === crashes;
process.exit(healthy ? 0 : 1);
