/**
 * Where the browser tests find Chromium, for `npm test` (scripts/test.ts) and every browser test file.
 * PARLEY_CHROMIUM, when set, must name a working executable; otherwise the usual install locations are
 * tried in order. A machine without any skips the browser tests (npm test says so, once), except
 * under CI=true, where that fails the run as a missing PostgreSQL does. PARLEY_SKIP_BROWSER=1 skips
 * them on a machine that has one (they take minutes), and is refused under CI=true for the same reason.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const CHROMIUM_MISSING =
  'WARNING: NO CHROMIUM FOUND, so the browser tests were SKIPPED. Install it (Debian/Ubuntu: apt-get install chromium) or set PARLEY_CHROMIUM to a Chromium or Chrome executable.';

export interface ChromiumSearch {
  /** The executable the browser tests launch; null when there is none. */
  executable: string | null;
  /** Why the run must fail rather than skip the browser tests; null when it need not. */
  problem: string | null;
}

export const BROWSER_TESTS_SKIPPED_ON_REQUEST = 'the browser tests were skipped, as PARLEY_SKIP_BROWSER=1 asked';

/** CI=true (or 1, yes): nothing may be skipped for want of a server or a browser. */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  return /^(1|true|yes)$/i.test(env.CI ?? '');
}

/** PARLEY_SKIP_BROWSER=1 (or true, yes): the person running the tests wants them without a browser. */
export function browserSkipRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  return /^(1|true|yes)$/i.test(env.PARLEY_SKIP_BROWSER ?? '');
}

/** Playwright's own downloads (`npx playwright-core install chromium`), newest revision first. */
function playwrightChromiums(env: NodeJS.ProcessEnv): string[] {
  const cache = process.platform === 'darwin' ? join(homedir(), 'Library', 'Caches') : env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const registry = env.PLAYWRIGHT_BROWSERS_PATH || join(cache, 'ms-playwright');
  let revisions: string[];
  try {
    revisions = readdirSync(registry).filter((name) => /^chromium-\d+$/.test(name));
  } catch {
    return [];
  }
  revisions.sort((a, b) => Number(b.slice('chromium-'.length)) - Number(a.slice('chromium-'.length)));
  const testingApp = (dir: string) => join(dir, 'Google Chrome for Testing.app', 'Contents', 'MacOS', 'Google Chrome for Testing');
  return revisions.flatMap((revision) =>
    [
      join('chrome-linux64', 'chrome'),
      join('chrome-linux-arm64', 'chrome'),
      join('chrome-linux', 'chrome'),
      testingApp('chrome-mac-arm64'),
      testingApp('chrome-mac-x64'),
      join('chrome-mac', 'Chromium.app', 'Contents', 'MacOS', 'Chromium'),
    ].map((executable) => join(registry, revision, executable)),
  );
}

/** Where Chromium or Chrome is usually installed, in the order they are tried. */
export function chromiumCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  return [
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
    '/usr/bin/google-chrome-stable',
    '/snap/bin/chromium',
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    ...playwrightChromiums(env),
  ];
}

/** Why `executable` cannot run as a browser, or null when `--version` answers. */
function chromiumProblem(executable: string): string | null {
  if (!existsSync(executable)) return 'no such file';
  // Ubuntu's /usr/bin/chromium-browser, for one, can be a stub that only says to install a snap.
  const run = spawnSync(executable, ['--version'], { encoding: 'utf8', timeout: 15_000 });
  if (run.error) return run.error.message;
  if (run.status !== 0) return `\`${executable} --version\` exited with ${run.status ?? run.signal}${run.stderr.trim() ? `: ${run.stderr.trim().split('\n')[0]}` : ''}`;
  return null;
}

export function findChromium(env: NodeJS.ProcessEnv = process.env, candidates: string[] = chromiumCandidates(env)): ChromiumSearch {
  if (browserSkipRequested(env)) {
    return { executable: null, problem: isCi(env) ? 'CI=true refuses PARLEY_SKIP_BROWSER: the browser tests may not be skipped in CI' : null };
  }
  const chosen = env.PARLEY_CHROMIUM;
  if (chosen) {
    const problem = chromiumProblem(chosen);
    return problem ? { executable: null, problem: `PARLEY_CHROMIUM (${chosen}) is not a working Chromium: ${problem}` } : { executable: chosen, problem: null };
  }
  const executable = candidates.find((candidate) => chromiumProblem(candidate) === null);
  if (executable) return { executable, problem: null };
  if (isCi(env)) return { executable: null, problem: `CI=true but no Chromium was found, so the browser tests would be skipped (looked in ${candidates.join(', ')}); set PARLEY_CHROMIUM or install it (apt-get install chromium)` };
  return { executable: null, problem: null };
}

/** For a browser test file: the executable, or undefined to skip its tests; throws (at load) when the run must fail. */
export function chromiumForTests(): string | undefined {
  const { executable, problem } = findChromium();
  if (problem) throw new Error(problem);
  return executable ?? undefined;
}
