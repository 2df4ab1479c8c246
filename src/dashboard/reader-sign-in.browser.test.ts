import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { artifact, DESKTOP, launchBrowser, PHONE, signedInDashboard } from '../../test/dashboard.ts';
import { startParley, type TestParley } from '../../test/helper.ts';
import { startOidcProvider, type TestOidcProvider } from '../../test/oidc-provider.ts';
import { addStaff } from '../../test/staff.ts';
import { EMAIL_PROVIDER, signInReader, type ProvenIdentity } from '../readers/sign-in.ts';
import { findSite } from '../sites/repository.ts';

const CHROMIUM = chromiumForTests();
const PUBLIC_URL = 'https://comments.example.com';
let parley: TestParley;
let browser: Browser;
let idp: TestOidcProvider;

beforeAll(async () => {
  if (!CHROMIUM) return;
  // The server's public address differs from the one the browser uses: the callback URL shown must be the server's.
  parley = await startParley({ PARLEY_PUBLIC_URL: PUBLIC_URL });
  browser = await launchBrowser(CHROMIUM);
  idp = await startOidcProvider({ redirectUri: `${PUBLIC_URL}/v1/auth/callback` });
});
afterAll(async () => {
  await browser?.close();
  await parley?.close();
  await idp?.close();
});

async function adminOfNewSite(options: { domains?: string[] } = {}) {
  const site = await parley.newSite({ siteName: 'Tide blog', ...options });
  const admin = await addStaff(parley, site.account_id, 'admin', { name: 'Ada Admin' });
  return { site, admin };
}

const signInPage = (siteId: string) => `/dashboard/reader-sign-in?site=${siteId}`;
const siteOf = async (site: { site_id: string; api_key: string }) => (await parley.request('GET', `/api/sites/${site.site_id}`, { token: site.api_key })).body;

async function screenshots(page: Page, name: string) {
  for (const [theme, size, viewport] of [['light', 'desktop', DESKTOP], ['dark', 'desktop', DESKTOP], ['light', 'phone', PHONE]] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await page.setViewportSize(viewport);
    expect(await seriousViolations(page), `${theme} ${size}`).toEqual([]);
    // From the top: the sticky header would otherwise be drawn where the page was scrolled to.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: artifact(`dashboard-${name}-${theme}-${size}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(DESKTOP);
}

describe.skipIf(!CHROMIUM)("choosing how a site's readers sign in", () => {
  it('switches sign-in by email code and providers’ pictures, each saved at once, and says what email sign-in lacks', async () => {
    const { site, admin } = await adminOfNewSite({ domains: [] });
    const { context, page } = await signedInDashboard(browser, parley, admin.email, signInPage(site.site_id));
    await page.getByRole('heading', { name: 'How readers sign in to Tide blog' }).waitFor();
    // This server sends no mail and the site has no domains: both are said, next to the switch.
    await page.getByText('This server sends no mail').waitFor();
    await page.getByText('The site has no domains').waitFor();

    const email = page.getByRole('switch', { name: 'Sign-in by email code' });
    const pictures = page.getByRole('switch', { name: 'Show readers’ pictures from their provider' });
    expect(await email.isChecked()).toBe(true);
    expect(await pictures.isChecked()).toBe(false);
    await email.uncheck();
    await page.getByText('Sign-in by email code is off').waitFor();
    await pictures.check();
    await page.getByText('Readers’ pictures come from their provider').waitFor();
    expect(await siteOf(site)).toMatchObject({ email_sign_in: false, provider_avatars: true });
    await page.reload();
    expect(await page.getByRole('switch', { name: 'Sign-in by email code' }).isChecked()).toBe(false);
    expect(await page.getByRole('switch', { name: 'Show readers’ pictures from their provider' }).isChecked()).toBe(true);
    await screenshots(page, 'reader-sign-in-needs');
    await context.close();
  });

  it('is in the navigation of owners and admins only', async () => {
    const { site, admin } = await adminOfNewSite();
    const moderator = await addStaff(parley, site.account_id, 'moderator', { name: 'Mo Derator' });
    const asModerator = await signedInDashboard(browser, parley, moderator.email);
    expect(await asModerator.page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Reader sign-in' }).count()).toBe(0);
    await asModerator.page.goto(signInPage(site.site_id));
    await asModerator.page.getByRole('heading', { name: "This page is for the account's admins" }).waitFor();
    await asModerator.context.close();

    const { context, page } = await signedInDashboard(browser, parley, admin.email);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Reader sign-in' }).click();
    await page.getByRole('heading', { name: 'How readers sign in to Tide blog' }).waitFor();
    await context.close();
  });

  it('adds an identity provider, showing the exact callback URL to paste, tests it, edits it and removes it after confirming', async () => {
    const { site, admin } = await adminOfNewSite();
    const { context, page } = await signedInDashboard(browser, parley, admin.email, signInPage(site.site_id));
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByText('No identity provider yet').waitFor();
    // GitHub first: its console steps, and an issuer only for GitHub Enterprise.
    expect(await page.getByLabel('Type').inputValue()).toBe('github');
    await page.getByText('Settings → Developer settings → OAuth Apps').waitFor();
    expect(await page.getByLabel('Name on the sign-in button').inputValue()).toBe('GitHub');
    expect(await page.getByLabel('Issuer (optional)').getAttribute('required')).toBeNull();
    // Before the first provider, the server's own callback URL (PARLEY_PUBLIC_URL), not the dashboard's address.
    await page.locator('.callback code').getByText(`${PUBLIC_URL}/v1/auth/callback`).waitFor();

    await page.getByLabel('Type').selectOption('google');
    await page.getByText('APIs & Services → Credentials').waitFor();
    expect(await page.getByLabel('Name on the sign-in button').inputValue()).toBe('Google');
    await page.getByLabel('Type').selectOption('oidc');
    expect(await page.getByLabel('Name on the sign-in button').inputValue()).toBe('Single sign-on');
    expect(await page.getByLabel('Issuer', { exact: true }).getAttribute('required')).not.toBeNull();
    await page.getByLabel('Name on the sign-in button').fill('Harbour ID');
    await page.getByLabel('Client ID').fill('parley-tide-blog');
    await page.getByLabel(/^Client secret/).fill('a secret of the client');
    await page.getByLabel('Issuer', { exact: true }).fill(idp.issuer);
    await page.getByRole('button', { name: 'Add the provider' }).click();

    const added = page.getByRole('status').filter({ hasText: 'Harbour ID is added.' });
    await added.getByText(`${PUBLIC_URL}/v1/auth/callback`).waitFor();
    await added.getByRole('button', { name: 'Copy the callback URL' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${PUBLIC_URL}/v1/auth/callback`);
    const listed = (await parley.request('GET', `/api/sites/${site.site_id}/identity-providers`, { token: site.api_key })).body.providers;
    expect(listed).toMatchObject([{ type: 'oidc', name: 'Harbour ID', client_id: 'parley-tide-blog', issuer: idp.issuer }]);
    expect(JSON.stringify(listed)).not.toContain('a secret of the client');
    // The form is empty again, and now shows the server's own callback URL.
    expect(await page.getByLabel('Client ID').inputValue()).toBe('');
    await page.locator('form .callback code').getByText(`${PUBLIC_URL}/v1/auth/callback`).waitFor();
    await page.getByRole('button', { name: 'Done' }).click();

    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Harbour ID' }) });
    await card.getByText('Any OpenID Connect provider').waitFor();
    await card.getByText('parley-tide-blog').waitFor();
    await card.getByRole('button', { name: 'Test Harbour ID' }).click();
    await card.getByRole('status').getByText(`Works: Issuer ${idp.issuer} answered`).waitFor();
    await screenshots(page, 'reader-sign-in-providers');

    await card.getByRole('button', { name: 'Edit Harbour ID' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit Harbour ID' });
    await dialog.getByText(`${PUBLIC_URL}/v1/auth/callback`).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: artifact('dashboard-reader-sign-in-edit-light-desktop.png') });
    await dialog.getByLabel('Name on the sign-in button').fill('Harbour account');
    await dialog.getByRole('button', { name: 'Save the provider' }).click();
    await page.getByText('Harbour account is saved').waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
    const [saved] = (await parley.request('GET', `/api/sites/${site.site_id}/identity-providers`, { token: site.api_key })).body.providers;
    expect(saved).toMatchObject({ name: 'Harbour account', client_id: 'parley-tide-blog', issuer: idp.issuer });

    page.once('dialog', (confirm) => void confirm.dismiss());
    await page.getByRole('button', { name: 'Remove Harbour account' }).click();
    expect((await parley.request('GET', `/api/sites/${site.site_id}/identity-providers`, { token: site.api_key })).body.providers).toHaveLength(1);
    page.once('dialog', (confirm) => {
      expect(confirm.message()).toBe('Remove Harbour account? Readers who sign in only through Harbour account lose that way in; their comments stay.');
      void confirm.accept();
    });
    await page.getByRole('button', { name: 'Remove Harbour account' }).click();
    await page.getByText('Harbour account is removed').waitFor();
    await page.getByText('No identity provider yet').waitFor();
    expect((await parley.request('GET', `/api/sites/${site.site_id}/identity-providers`, { token: site.api_key })).body.providers).toEqual([]);
    await context.close();
  });

  it('shows in the commenter drawer how each reader signs in', async () => {
    const { site, admin } = await adminOfNewSite({ domains: ['blog.example.com'] });
    const github = await parley.request('POST', `/api/sites/${site.site_id}/identity-providers`, {
      token: site.api_key,
      body: { type: 'github', name: 'GitHub', client_id: 'Iv1.tideblog', client_secret: 'a secret of the client' },
    });
    expect(github.status).toBe(201);
    const siteRow = (await findSite(parley.app.db.kysely, site.site_id))!;
    const rita: Omit<ProvenIdentity, 'provider' | 'subject'> = { email: 'rita@example.com', emailVerified: true, name: 'Rita Reader', pictureUrl: null };
    const viaGithub = await signInReader(parley.app.db, siteRow, { ...rita, provider: github.body.id, subject: '4242' });
    await signInReader(parley.app.db, siteRow, { ...rita, provider: EMAIL_PROVIDER, subject: rita.email! });
    const ssoUser = (await parley.request('POST', '/v1/sessions', { token: site.api_key, body: { site_id: site.site_id, user: { id: 'sam', name: 'Sam Site' } } })).body.user;

    const { context, page } = await signedInDashboard(browser, parley, admin.email, `/dashboard/queue?tab=all&author=${viaGithub.user.id}&author_site=${site.site_id}`);
    const drawer = page.getByRole('dialog', { name: 'Commenter' });
    await drawer.getByRole('heading', { name: 'Rita Reader' }).waitFor();
    await drawer.getByText('Signs in with: GitHub, email code').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: artifact('dashboard-reader-sign-in-drawer-light-desktop.png') });
    await page.goto(`/dashboard/queue?tab=all&author=${ssoUser.id}&author_site=${site.site_id}`);
    await drawer.getByRole('heading', { name: 'Sam Site' }).waitFor();
    await drawer.getByText('Signed in by the site (SSO or its backend)').waitFor();
    await context.close();
  });
});
