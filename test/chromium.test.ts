import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chromiumCandidates, findChromium } from './chromium.ts';

const dir = mkdtempSync(join(tmpdir(), 'parley-chromium-search-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in executable: answers `--version` as Chromium does, or fails as a broken install does. */
function fakeBrowser(name: string, works: boolean): string {
  const path = join(dir, name);
  writeFileSync(path, works ? '#!/bin/sh\necho "Chromium 140.0.0.0"\n' : '#!/bin/sh\necho "chromium is not installed" >&2\nexit 1\n');
  chmodSync(path, 0o755);
  return path;
}

const missing = [join(dir, 'nowhere', 'chromium'), join(dir, 'nowhere', 'chrome')];

describe('finding Chromium for the browser tests', () => {
  it('skips the browser tests, without failing the run, when no candidate exists outside CI', () => {
    expect(findChromium({}, missing)).toEqual({ executable: null, problem: null });
  });

  it('fails the run under CI=true when no candidate exists, naming where it looked', () => {
    const { executable, problem } = findChromium({ CI: 'true' }, missing);
    expect(executable).toBeNull();
    expect(problem).toMatch(/^CI=true but no Chromium was found/);
    expect(problem).toContain(missing[0]);
  });

  it('takes the first candidate that answers --version, passing over a broken one', () => {
    const broken = fakeBrowser('broken', false);
    const working = fakeBrowser('working', true);
    expect(findChromium({ CI: 'true' }, [...missing, broken, working])).toEqual({ executable: working, problem: null });
  });

  it('uses a working PARLEY_CHROMIUM before any candidate', () => {
    const chosen = fakeBrowser('chosen', true);
    expect(findChromium({ PARLEY_CHROMIUM: chosen }, [fakeBrowser('other', true)])).toEqual({ executable: chosen, problem: null });
  });

  it('fails the run, even outside CI, when PARLEY_CHROMIUM is set but does not work', () => {
    const fallback = fakeBrowser('fallback', true);
    expect(findChromium({ PARLEY_CHROMIUM: missing[0] }, [fallback])).toEqual({
      executable: null,
      problem: `PARLEY_CHROMIUM (${missing[0]}) is not a working Chromium: no such file`,
    });
    const broken = fakeBrowser('broken-chosen', false);
    expect(findChromium({ PARLEY_CHROMIUM: broken }, [fallback]).problem).toBe(
      `PARLEY_CHROMIUM (${broken}) is not a working Chromium: \`${broken} --version\` exited with 1: chromium is not installed`,
    );
  });

  it('skips the browser tests when PARLEY_SKIP_BROWSER asks, even with a working Chromium, but never under CI', () => {
    const working = fakeBrowser('present', true);
    expect(findChromium({ PARLEY_SKIP_BROWSER: '1' }, [working])).toEqual({ executable: null, problem: null });
    expect(findChromium({ PARLEY_SKIP_BROWSER: '1', PARLEY_CHROMIUM: working }, [])).toEqual({ executable: null, problem: null });
    expect(findChromium({ PARLEY_SKIP_BROWSER: '0' }, [working])).toEqual({ executable: working, problem: null });
    expect(findChromium({ PARLEY_SKIP_BROWSER: '1', CI: 'true' }, [working])).toEqual({
      executable: null,
      problem: 'CI=true refuses PARLEY_SKIP_BROWSER: the browser tests may not be skipped in CI',
    });
  });

  it("looks in Playwright's browser cache, newest revision first, after the system's", () => {
    const cache = join(dir, 'ms-playwright');
    for (const revision of ['chromium-1200', 'chromium-987', 'chromium_headless_shell-1200', 'firefox-1500']) mkdirSync(join(cache, revision), { recursive: true });
    const candidates = chromiumCandidates({ PLAYWRIGHT_BROWSERS_PATH: cache });
    expect(candidates[0]).toBe('/usr/bin/chromium');
    const cached = candidates.filter((candidate) => candidate.startsWith(cache));
    expect(cached[0]).toBe(join(cache, 'chromium-1200', 'chrome-linux64', 'chrome'));
    expect(cached).toContain(join(cache, 'chromium-1200', 'chrome-linux', 'chrome'));
    expect(cached.findIndex((candidate) => candidate.includes('chromium-987'))).toBeGreaterThan(cached.findLastIndex((candidate) => candidate.includes('chromium-1200')));
    expect(cached.every((candidate) => /\/chromium-(1200|987)\//.test(candidate))).toBe(true);
  });
});
