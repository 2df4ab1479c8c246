import { Type } from 'typebox';
import { escapeHtml } from '../formatting/escape.ts';
import type { PagePolicy } from '../http/html-page.ts';

/**
 * A page of this server that shows the widget (the demo, the dashboard's preview): this server's
 * script and API alone; inline styles for the page's own and the widget's shadow root's.
 */
export const WIDGET_PAGE_SOURCES =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'";

/** The demo page runs on the dashboard's origin: nothing may frame it either. */
export const DEMO_POLICY: PagePolicy = { sources: WIDGET_PAGE_SOURCES, framedBy: 'none' };

/** The demo's query: a session to comment with, and the thread's `parley_*` parameters, which the page passes on as a site's server does. */
export const DemoQuery = Type.Object({
  session_token: Type.Optional(Type.String({ maxLength: 200 })),
  parley_static: Type.Optional(Type.String({ maxLength: 10 })),
  parley_sort: Type.Optional(Type.Union([Type.Literal('newest'), Type.Literal('oldest'), Type.Literal('top'), Type.Literal('best')])),
  parley_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  parley_reply: Type.Optional(Type.String({ maxLength: 100 })),
  parley_notice: Type.Optional(Type.String({ maxLength: 40, pattern: '^[a-z_]+$' })),
  parley_retry: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  parley_detail: Type.Optional(Type.String({ maxLength: 300 })),
});

export interface DemoOptions {
  siteId: string | null;
  /** The sample thread: the demo page's own address without the query, whoever opens it. */
  threadUrl: string;
  sessionToken: string | null;
  /** The thread as GET /v1/comments/html gives it, which the widget takes over. */
  threadHtml: string | null;
  /** Without it, the page shows what a reader without JavaScript (or a crawler) gets. */
  withScript: boolean;
}

/** The page `npm start` shows at `/`: the widget on this page's own thread of the demo site. */
export function demoPage({ siteId, threadUrl, sessionToken, threadHtml, withScript }: DemoOptions): string {
  const snippet = `<script src="/embed.js" async></script>\n<parley-comments site-id="${siteId ?? 'site_...'}"></parley-comments>`;
  const widget =
    siteId === null
      ? '<p>This database has no site yet: run <code>npx parley bootstrap --site-name "My blog"</code> and reload.</p>'
      : (threadHtml ?? '<parley-comments></parley-comments>').replace(
          /^<parley-comments [^>]*>/,
          `<parley-comments site-id="${escapeHtml(siteId)}" thread-url="${escapeHtml(threadUrl)}" theme="auto"${sessionToken ? ` session-token="${escapeHtml(sessionToken)}"` : ''}>`,
        );
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Parley demo</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #1d1d1f; background: #fff; }
  pre { background: #f3f3f5; padding: .75rem; white-space: pre-wrap; overflow-wrap: anywhere; border-radius: 6px; }
  @media (prefers-color-scheme: dark) { body { color: #e8e8ea; background: #16161a; } pre { background: #24242a; } }
</style>
</head>
<body>
<main>
<h1>Parley demo</h1>
<p>This is a sample page of the demo site. Everything below the line is the Parley widget, added with:</p>
<pre><code>${escapeHtml(snippet)}</code></pre>
<p>The thread below is first the server's HTML of it (<code>GET /v1/comments/html</code>, which a site's server or build
includes inside the element): readers without JavaScript and crawlers read it, and post with its plain form. The widget then
takes it over without fetching the list again. <a href="${withScript ? '/?parley_static=1' : '/'}">${withScript ? 'See the page as a reader without JavaScript sees it' : 'See the page with the widget'}</a>.</p>
<p>Readers comment as guests here. To comment as a signed-in user, mint a session with the demo site's
admin key (<code>POST /v1/sessions</code>) and open <code>/?session_token=sess_...</code>.</p>
<hr>
${widget}
</main>
${withScript ? '<script src="/embed.js" async></script>' : ''}
</body>
</html>
`;
}
