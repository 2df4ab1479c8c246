import { ConfigError, loadConfig, type Config } from '../config.ts';
import type { CheckResult } from './report.ts';

type Env = Record<string, string | undefined>;

export interface ConfigurationCheck {
  /** The configuration Parley would run with once the invalid variables are fixed (their defaults meanwhile). */
  config: Config;
  /** Variables whose value is refused. */
  invalid: Set<string>;
  results: CheckResult[];
}

/**
 * PARLEY_ variables that are meant for something other than the server, so never a misspelt setting:
 * those `npm start` prints for the user's own shell and curl commands (src/server.ts), and those
 * `npm test` reads (scripts/test.ts, test/chromium.ts). A developer's shell may hold any of them.
 */
const NOT_SETTINGS = new Set([
  'PARLEY_URL',
  'PARLEY_KEY',
  'PARLEY_SETUP_LINK',
  'PARLEY_TEST_DATABASE_URL',
  'PARLEY_TEST_REDIS_URL',
  'PARLEY_CHROMIUM',
  'PARLEY_SKIP_BROWSER',
]);

/** A variable named in a refusal that is set, so that leaving it out may let the rest load. */
function culprit(message: string, env: Env): string | undefined {
  return message.match(/\b[A-Z][A-Z0-9_]{2,}\b/g)?.find((name) => env[name] !== undefined);
}

/**
 * Every variable checked, not only the first wrong one as at start: `loadConfig` refuses one value
 * at a time, so the refused variable is left out and the rest loaded again, until they load. Every
 * refusal names its variable and the value it got. Then variables starting with PARLEY_ that
 * Parley never read (NOT_SETTINGS aside) are named: a misspelt variable is otherwise silently ignored.
 */
export function checkConfiguration(env: Env): ConfigurationCheck {
  const remaining: Env = { ...env };
  const invalid = new Set<string>();
  const results: CheckResult[] = [];
  const read = new Set<string>();
  const recordingReads = new Proxy(remaining, {
    get: (target, name) => {
      if (typeof name === 'string') read.add(name);
      return target[name as string];
    },
  });
  let config: Config | undefined;
  while (!config) {
    try {
      config = loadConfig(recordingReads);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      const name = culprit(error.message, remaining);
      results.push({ level: 'fail', subject: 'configuration', text: error.message });
      // Not one variable's fault (never so today): the defaults stand in for all of them.
      if (name === undefined) config = loadConfig({});
      else {
        invalid.add(name);
        delete remaining[name];
      }
    }
  }
  for (const name of Object.keys(env).sort()) {
    if (name.startsWith('PARLEY_') && !read.has(name) && !invalid.has(name) && !NOT_SETTINGS.has(name)) {
      results.push({ level: 'warn', subject: 'configuration', text: `${name} is not a variable Parley reads (misspelt?); it is ignored` });
    }
  }
  if (invalid.size === 0) {
    const set = [...read].filter((name) => env[name] !== undefined && env[name] !== '').length;
    results.unshift({ level: 'ok', subject: 'configuration', text: `${set} variable${set === 1 ? '' : 's'} set, every value valid` });
  }
  return { config, invalid, results };
}
