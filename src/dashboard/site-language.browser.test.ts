import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { artifact, dashboardBed, DESKTOP, PHONE, signedInDashboard } from '../../test/dashboard.ts';
import { addStaff } from '../../test/staff.ts';

const bed = dashboardBed();

describe.skipIf(!chromiumForTests())("a site's language and its own words", () => {
  it('sets the default language, rewords a message in German, is told at the field what the server refused, and fixes it', async () => {
    const { parley, browser } = bed;
    const site = await parley.newSite({ siteName: 'Tide blog' });
    const admin = await addStaff(parley, site.account_id, 'admin', { name: 'Ada Admin' });
    const siteNow = async () => (await parley.request('GET', `/api/sites/${site.site_id}`, { token: site.api_key })).body;
    const { context, page } = await signedInDashboard(browser, parley, admin.email, `/dashboard/sites/${site.site_id}`);

    const language = page.getByLabel('Default language');
    expect(await language.inputValue()).toBe('');
    // Each language is named in itself.
    expect(await language.locator('option[value="de"]').textContent()).toBe('Deutsch');
    expect(await language.locator('option[value="ja"]').textContent()).toBe('日本語');
    await language.selectOption('de');
    await page.getByRole('button', { name: 'Save the language' }).click();
    await page.getByText('The site’s language is saved').waitFor();
    expect((await siteNow()).language).toBe('de');

    await page.getByLabel('Language of the words').selectOption('de');
    await page.getByLabel('Find a message').fill('no comments yet');
    await page.getByRole('status').filter({ hasText: /^1 message of \d+$/ }).waitFor();
    const empty = page.getByLabel('empty', { exact: true });
    expect(await page.locator('#word-empty-english').textContent()).toContain('No comments yet. Start the conversation.');

    // A placeholder Parley's English lacks is refused; the reason shows at the field, which gets the focus.
    await empty.fill('Noch nichts hier, {name}.');
    await page.getByRole('button', { name: 'Save the words for empty' }).click();
    const refusal = page.locator('#word-empty-problem');
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe('uses {name}, which the English does not');
    expect(await empty.getAttribute('aria-invalid')).toBe('true');
    expect(await empty.getAttribute('aria-describedby')).toContain('word-empty-problem');
    expect(await empty.evaluate((field) => field === document.activeElement)).toBe(true);
    expect((await siteNow()).strings).toEqual({});
    await page.locator('.word').screenshot({ path: artifact('dashboard-site-language-refused-light-desktop.png') });

    // Fixed by keyboard: the field has the focus, Tab reaches Save.
    await empty.fill('Noch nichts hier.');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByText('The words for empty are saved').waitFor();
    expect(await refusal.count()).toBe(0);
    expect((await siteNow()).strings).toEqual({ de: { empty: 'Noch nichts hier.' } });

    // The list narrows to what the site rewords; the language list counts them.
    await page.getByLabel('Find a message').fill('');
    await page.getByLabel('Only the messages the site rewords in Deutsch').check();
    await page.getByRole('status').filter({ hasText: /^1 message of \d+$/ }).waitFor();
    expect(await page.getByLabel('Language of the words').locator('option[value="de"]').textContent()).toBe('Deutsch (1 message reworded)');

    const panel = page.locator('.panel').filter({ has: page.getByRole('heading', { name: 'Language', exact: true }) });
    for (const [theme, size, viewport] of [['light', 'desktop', DESKTOP], ['dark', 'desktop', DESKTOP], ['light', 'phone', PHONE]] as const) {
      await page.emulateMedia({ colorScheme: theme });
      await page.setViewportSize(viewport);
      expect(await seriousViolations(page), `${theme} ${size}`).toEqual([]);
      // From the top, cut to the panel: scrolled to it, the sticky header would be drawn over it.
      await page.evaluate(() => window.scrollTo(0, 0));
      const clip = (await panel.boundingBox())!;
      await page.screenshot({ path: artifact(`dashboard-site-language-${theme}-${size}.png`), fullPage: true, clip });
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize(DESKTOP);

    // Put back to Parley's words: the language's table goes.
    await page.getByRole('button', { name: 'Use Parley’s words for empty' }).click();
    await page.getByText('empty uses Parley’s words again').waitFor();
    expect((await siteNow()).strings).toEqual({});
    await context.close();
  });
});
