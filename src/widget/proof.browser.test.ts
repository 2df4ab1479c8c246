import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { startParley, type TestParley } from '../../test/helper.ts';
import { PROOF_MAX_NUMBER } from '../spam/proof.ts';
import { escapeHtml } from '../formatting/escape.ts';

/**
 * How long a guest waits for the widget's proof of work (ALTCHA, src/spam/proof.ts) on a phone: a
 * real Chromium, its CPU slowed four times as Lighthouse's mobile preset does, posts comments on a
 * site that asks every guest for a proof, and the widget's own solver reports each solve time (the
 * `parley:proof` measure). The bound holds the difficulty to "well under a second" with room for a
 * loaded machine, and fails if the difficulty is raised tenfold (docs/moderation.md, "Spam defence").
 */

/** Undefined on a machine without Chromium: the tests are skipped (npm test says so). */
const CHROMIUM = chromiumForTests();

const CPU_SLOWDOWN = 4;
const CHALLENGES = 20;

let parley: TestParley;
let site: { site_id: string; api_key: string };
let pages: Server;
let pageOrigin: string;
let profile: string;
let browser: BrowserContext;

beforeAll(async () => {
  parley = await startParley();
  pages = createServer((request, response) => {
    const thread = `${pageOrigin}${new URL(request.url ?? '/', pageOrigin).pathname}`;
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>An article</title></head>
<body><parley-comments site-id="${escapeHtml(site.site_id)}" thread-url="${escapeHtml(thread)}"></parley-comments>
<script src="${parley.url}/embed.js" async></script></body></html>`);
  });
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  const pageHost = `127.0.0.1:${(pages.address() as { port: number }).port}`;
  pageOrigin = `http://${pageHost}`;
  site = await parley.newSite({ domains: [pageHost] });
  // Every check but the proof is out of the way, so each post is one solve and one write.
  const spam = { proof_of_work: 'always', min_submit_seconds: 0, links_min_approved: 0, thread_per_minute: 0, site_per_minute: 0, ip_range_per_10_minutes: 0 };
  expect((await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { spam } })).status).toBe(200);
  profile = mkdtempSync(join(tmpdir(), 'parley-chromium-'));
  browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  pages?.close();
  await parley?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** The value below which `share` of the sorted `values` lie (nearest rank). */
const percentile = (values: number[], share: number) => values[Math.ceil(share * values.length) - 1]!;

describe.skipIf(!CHROMIUM)('the proof of work on a slowed CPU', () => {
  it(`is solved by the widget in well under a second (${CHALLENGES} challenges, CPU ${CPU_SLOWDOWN}x slower)`, async () => {
    const page = await browser.newPage();
    await page.goto(`${pageOrigin}/article`);
    await page.waitForFunction(() => (document.querySelector('parley-comments') as unknown as { renderTime: number | null } | null)?.renderTime != null);
    const cdp = await browser.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
    for (let i = 1; i <= CHALLENGES; i++) {
      await page.getByLabel('Write a comment').fill(`Comment number ${i} on a slow phone`);
      await page.getByRole('button', { name: 'Post comment' }).click();
      await expect.poll(() => page.locator('.text', { hasText: `Comment number ${i} on a slow phone` }).count(), { timeout: 20_000 }).toBe(1);
    }
    const solves = await page.evaluate(() => performance.getEntriesByName('parley:proof').map((entry) => entry.duration));
    expect(solves).toHaveLength(CHALLENGES);
    const sorted = solves.toSorted((a, b) => a - b);
    const median = percentile(sorted, 0.5);
    const p95 = percentile(sorted, 0.95);
    console.info(`proof of work, maxnumber ${PROOF_MAX_NUMBER}, CPU ${CPU_SLOWDOWN}x slower: median ${Math.round(median)} ms, p95 ${Math.round(p95)} ms, all ${sorted.map(Math.round).join(' ')}`);
    // Measured at 114 to 170 ms (median) and 264 to 665 ms (p95) as the machine's load varied
    // (BENCHMARKS.md, "Spam checks"), so a loaded machine has room; ten times the difficulty measured 1.4 s and 2.8 s.
    expect(median).toBeLessThan(700);
    expect(p95).toBeLessThan(1500);
    await page.close();
  }, 180_000);
});
