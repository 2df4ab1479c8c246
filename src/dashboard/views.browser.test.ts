import { beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { artifact, DESKTOP, dashboardBed, openDashboard, PHONE, signInThroughPage, siteViews } from '../../test/dashboard.ts';
import { pageUrl } from '../../test/helper.ts';
import { subscribe } from '../../test/receiver.ts';
import { addStaff } from '../../test/staff.ts';

/**
 * Every view of the dashboard in light and dark, on a phone and on a desktop: no serious or critical
 * accessibility violation, nothing from another origin, nothing the Content-Security-Policy
 * refuses, and a screenshot of each saved under test-artifacts/ to look at.
 */
const CHROMIUM = chromiumForTests();
const bed = dashboardBed({ webhooks: true });
let views: Array<[string, string, string]>;

beforeAll(async () => {
  if (!CHROMIUM) return;
  const { parley, receiver } = bed;
  const site = await parley.newSite({ siteName: 'The Harbour Gazette', moderation: 'guests', domains: ['127.0.0.1'] });
  await subscribe(parley, site, receiver.url, ['comment.created']);
  const alice = await parley.signIn(site.api_key, site.site_id, { id: 'alice', name: 'Alice Liddell' });
  const thread = pageUrl('127.0.0.1');
  const post = async (content: string, options: { token?: string; parent_id?: string; name?: string } = {}) =>
    (await parley.request('POST', '/v1/comments', { token: options.token, body: { site_id: site.site_id, thread_url: thread, content, parent_id: options.parent_id, author_name: options.token ? undefined : (options.name ?? 'Guest') } })).body.id as string;
  const root = await post('The tide tables in this article are off by an hour since the clocks changed.', { token: alice });
  await post('Thanks, we will fix them this afternoon.', { token: site.api_key, parent_id: root });
  await post('Cheap watches at example.com, best prices!!!', { name: 'Watch Seller' });
  await post('I sailed out at the time you gave and got stuck on the sandbank. Please correct it.', { parent_id: root, name: 'Sam Sailor' });
  await parley.request('POST', `/v1/comments/${root}/flag`, { body: { reason: 'Not true, the tables are right' } });
  await parley.request('POST', `/api/sites/${site.site_id}/webhooks/test`, { token: site.api_key, body: {} });
  const owner = await addStaff(parley, site.account_id, 'owner', { name: 'Olive Owner' });
  await addStaff(parley, site.account_id, 'moderator', { name: 'Mo Derator' });
  views = [
    ['queue', '/dashboard/queue', 'Moderation queue'],
    ['queue-flagged', '/dashboard/queue?tab=flagged', 'Moderation queue'],
    ['author-drawer', `/dashboard/queue?tab=all&author=${(await parley.request('GET', `/api/comments?site_id=${site.site_id}&status=all`, { token: site.api_key })).body.comments.find((c: { author_name: string }) => c.author_name === 'Alice Liddell').author.id}&author_site=${site.site_id}`, 'Alice Liddell'],
    ...siteViews(site.site_id, thread, root),
  ];
  (globalThis as { ownerEmail?: string }).ownerEmail = owner.email;
}, 120_000);

const THEMES = ['light', 'dark'] as const;
const SIZES = { phone: PHONE, desktop: DESKTOP };

describe.skipIf(!CHROMIUM)('every view of the dashboard', () => {
  it('passes axe-core in light and dark, at phone and desktop widths, and is saved as screenshots', async () => {
    const { context, page } = await openDashboard(bed.browser, bed.parley, '/dashboard/sign-in');
    await page.addInitScript(() => document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP refused ${event.blockedURI} (${event.violatedDirective})`)));
    const refused: string[] = [];
    page.on('console', (message) => message.type() === 'error' && !message.text().startsWith('Failed to load resource') && refused.push(message.text()));
    page.on('response', (response) => response.status() >= 400 && refused.push(`${response.status()} ${response.url()}`));
    const shoot = async (name: string) => {
      for (const theme of THEMES) {
        await page.emulateMedia({ colorScheme: theme });
        for (const [size, viewport] of Object.entries(SIZES)) {
          await page.setViewportSize(viewport);
          expect(await seriousViolations(page), `${name} ${theme} ${size}`).toEqual([]);
          await page.screenshot({ path: artifact(`dashboard-${name}-${theme}-${size}.png`), fullPage: size === 'desktop' });
        }
      }
    };
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await shoot('sign-in');
    await signInThroughPage(page, (globalThis as { ownerEmail?: string }).ownerEmail!);
    for (const [name, path, heading] of views) {
      await page.goto(path);
      await page.getByRole('heading', { name: heading }).first().waitFor();
      await page.waitForFunction(() => !document.querySelector('[role=status].note')?.textContent?.startsWith('Loading'));
      if (name === 'site-settings') await page.frameLocator('iframe.preview').locator('parley-comments').waitFor();
      await shoot(name);
    }
    await page.goto('/dashboard/queue');
    await page.getByRole('heading', { name: 'Moderation queue' }).waitFor();
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
    await shoot('shortcuts');
    expect(refused).toEqual([]);
    await context.close();
  }, 240_000);

  it('can be used with the keyboard alone: every control is reachable with Tab and shows where the focus is', async () => {
    const { context, page } = await openDashboard(bed.browser, bed.parley, '/dashboard/sign-in');
    await signInThroughPage(page, (globalThis as { ownerEmail?: string }).ownerEmail!);
    const reached = new Set<string>();
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => {
        const element = document.activeElement as HTMLElement;
        const style = getComputedStyle(element);
        return { label: `${element.tagName} ${element.getAttribute('aria-label') ?? element.textContent?.trim().slice(0, 30)}`, outline: style.outlineStyle !== 'none' && style.outlineWidth !== '0px' };
      });
      // Past the last control the browser's own interface has the focus: the page's body is active.
      if (focused.label.startsWith('BODY')) continue;
      reached.add(focused.label);
      expect(focused.outline, focused.label).toBe(true);
    }
    const labels = [...reached];
    for (const wanted of [/^A Queue/, /^A API keys/, /^BUTTON Sign out/, /^INPUT /, /^A 127\.0\.0\.1\/posts\//, /^BUTTON Approve/]) expect(labels.some((label) => wanted.test(label)), String(wanted)).toBe(true);
    await context.close();
  });
});
