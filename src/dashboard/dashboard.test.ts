import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type TestParley } from '../../test/helper.ts';
import { buildDashboardScript, buildDashboardStyles } from './bundle.ts';

/** The budget for the dashboard's JavaScript, gzipped. */
const SCRIPT_BUDGET_BYTES = 80 * 1024;

let parley: TestParley;
beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

describe('the dashboard as Parley serves it', () => {
  it('says its first words, before the script runs, in the browser’s language, right to left where it reads so', async () => {
    const messages = (locale: string) => JSON.parse(readFileSync(`src/dashboard/locales/${locale}.json`, 'utf8')) as Record<string, string>;
    for (const [asked, locale, dir] of [['de-DE,de;q=0.9', 'de', 'ltr'], ['tlh, ar;q=0.5', 'ar', 'rtl'], [null, 'en', 'ltr']] as const) {
      const response = await fetch(`${parley.url}/dashboard`, { headers: asked ? { 'accept-language': asked } : {} });
      expect(response.headers.get('vary')).toContain('Accept-Language');
      const html = await response.text();
      expect(html).toContain(`<html lang="${locale}" dir="${dir}">`);
      expect(html).toContain(`<p class="boot">${messages(locale)['shell.loading']}</p>`);
    }
  });

  it('answers every address under /dashboard with the app, under a policy that allows this server only', async () => {
    for (const path of ['/dashboard', '/dashboard/', '/dashboard/queue?tab=spam', '/dashboard/sites/site_x', '/dashboard/setup']) {
      const response = await fetch(parley.url + path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const csp = response.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self';");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/https?:|unsafe/);
      const html = await response.text();
      expect(html).toMatch(/<script src="\/dashboard\/assets\/app\.js\?v=[\w-]+" defer><\/script>/);
      // No inline script or style for the policy to refuse.
      expect(html).not.toMatch(/<script>|<style>| style=/);
    }
  });

  it('serves the script and stylesheet gzipped, with an ETag that answers 304', async () => {
    for (const [path, type] of [['/dashboard/assets/app.js', 'application/javascript'], ['/dashboard/assets/app.css', 'text/css']]) {
      const response = await fetch(parley.url + path, { headers: { 'accept-encoding': 'gzip' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain(type);
      expect(response.headers.get('content-encoding')).toBe('gzip');
      expect(response.headers.get('cache-control')).toContain('immutable');
      const again = await fetch(parley.url + path, { headers: { 'if-none-match': response.headers.get('etag')! } });
      expect(again.status).toBe(304);
    }
  });

  it('keeps its JavaScript within 80 kB gzipped', async () => {
    const script = await buildDashboardScript();
    const styles = await buildDashboardStyles();
    console.log(`dashboard: app.js ${script.code.length} B (${script.gzipped.length} B gzipped), app.css ${styles.code.length} B (${styles.gzipped.length} B gzipped)`);
    expect(script.gzipped.length).toBeLessThanOrEqual(SCRIPT_BUDGET_BYTES);
  });

  it('previews the widget of a site on a sample thread of its first domain', async () => {
    const site = await parley.newSite({ domains: ['blog.example.com'] });
    const response = await fetch(`${parley.url}/dashboard/preview?site_id=${site.site_id}&theme=dark`);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain(`<parley-comments site-id="${site.site_id}" thread-url="https://blog.example.com/parley-preview" theme="dark">`);
    expect((await fetch(`${parley.url}/dashboard/preview?site_id=site_missing`)).status).toBe(404);
    expect((await fetch(`${parley.url}/dashboard/preview`)).status).toBe(400);
  });
});
