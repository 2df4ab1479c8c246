import type { PagePolicy } from '../http/html-page.ts';
import { escapeHtml } from '../formatting/escape.ts';
import { WIDGET_PAGE_SOURCES } from '../widget/demo.ts';
import { direction, type Locale } from '../i18n/locales.ts';
import type { BootWords } from './catalogues.ts';

/**
 * Only this server's own files: no inline script or style, no other origin. The widget preview is
 * a frame of this server; nothing may frame the dashboard itself.
 */
export const DASHBOARD_POLICY: PagePolicy = {
  sources:
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; " +
    "object-src 'none'; base-uri 'none'; form-action 'self'",
  framedBy: 'none',
};

/** The preview is the widget on a page, framed by the dashboard. */
export const PREVIEW_POLICY: PagePolicy = { sources: WIDGET_PAGE_SOURCES, framedBy: 'self' };

/** The one HTML document of every dashboard URL; the script draws the view the URL names. */
export function dashboardPage(assets: { script: string; styles: string; locales: Record<string, string> }, words: BootWords & { locale: Locale }): string {
  // The language files there are, by version, for the script to fetch the one it needs (no inline script).
  const locales = Object.entries(assets.locales).map(([locale, version]) => `${locale}:${version}`).join(' ');
  return `<!doctype html>
<html lang="${words.locale}" dir="${direction(words.locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="parley-locales" content="${escapeHtml(locales)}">
<title>${escapeHtml(words.title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard/assets/app.css?v=${escapeHtml(assets.styles)}">
<script src="/dashboard/assets/app.js?v=${escapeHtml(assets.script)}" defer></script>
</head>
<body>
<div id="app"><p class="boot">${escapeHtml(words.loading)}</p><noscript>${escapeHtml(words.noscript)}</noscript></div>
</body>
</html>`;
}

/** The widget on a sample thread of a site, as a page that embeds it would show it. */
export function previewPage(siteId: string, threadUrl: string, theme: 'light' | 'dark' | 'auto'): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Widget preview</title>
<link rel="icon" href="data:,">
</head>
<body>
<parley-comments site-id="${escapeHtml(siteId)}" thread-url="${escapeHtml(threadUrl)}" theme="${theme}"></parley-comments>
<script src="/embed.js" async></script>
</body>
</html>`;
}
