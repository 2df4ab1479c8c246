/**
 * What the browser tests share: how Chromium is started, where screenshots go, and axe-core's
 * check for serious and critical accessibility violations.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

export const ARTIFACTS = join(process.cwd(), 'test-artifacts');
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it is now (id, impact, how many nodes). */
export async function seriousViolations(page: Page) {
  // Evaluated rather than added as a <script>: pages whose Content-Security-Policy allows no inline script (the dashboard) run it too.
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: unknown) => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: unknown }> }> }> } }).axe;
    return (await axe.run(document)).violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, first: JSON.stringify(v.nodes[0]?.target) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
