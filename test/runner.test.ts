import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** `npm test` (scripts/test.ts) run as CI runs it, on the files of test/runner-fixtures/ alone. */
function npmTest(env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // Not this run's own settings: CI=true or a database would make the runner demand more than a fixture needs.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(VITEST|CI$|PARLEY_TEST_|PARLEY_CHROMIUM$|PARLEY_SKIP_BROWSER$)/.test(name)),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/test.ts', '--config', 'test/runner-fixtures/vitest.config.ts'], {
    env: { ...inherited, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe("npm test's closing line", () => {
  it('counts a test file that fails outside its tests (at load, in beforeAll) as failed, and exits non-zero', async () => {
    const run = await npmTest();
    expect(run.stdout.trim().split('\n').at(-1)).toBe('1 passed, 2 failed, 1 skipped');
    expect(run.stderr).toContain('test/runner-fixtures/throws-at-load.fixture.ts failed outside its tests: thrown while the file loads');
    expect(run.stderr).toContain('test/runner-fixtures/fails-in-before-all.fixture.ts failed outside its tests: thrown in beforeAll');
    expect(run.code).toBe(1);
  });

  it('fails before any test starts when PARLEY_CHROMIUM names no working browser', async () => {
    const run = await npmTest({ PARLEY_CHROMIUM: '/nonexistent/chromium' });
    expect(run.stderr).toContain('npm test: PARLEY_CHROMIUM (/nonexistent/chromium) is not a working Chromium: no such file');
    expect(run.stdout).not.toContain('=== test suite');
    expect(run.code).toBe(1);
  });

  it('says the browser tests were skipped on request with PARLEY_SKIP_BROWSER=1, and refuses it under CI=true', async () => {
    const run = await npmTest({ PARLEY_SKIP_BROWSER: '1' });
    expect(run.stdout).toContain('npm test: the browser tests were skipped, as PARLEY_SKIP_BROWSER=1 asked\n');
    expect(run.stdout).not.toContain('NO CHROMIUM FOUND');
    expect(run.stdout).not.toContain('the browser tests use');
    const ci = await npmTest({ PARLEY_SKIP_BROWSER: '1', CI: 'true' });
    expect(ci.stderr).toContain('npm test: CI=true refuses PARLEY_SKIP_BROWSER: the browser tests may not be skipped in CI');
    expect(ci.stdout).not.toContain('=== test suite');
    expect(ci.code).toBe(1);
  });
});
