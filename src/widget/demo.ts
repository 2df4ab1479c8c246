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

export interface DemoOptions {
  siteId: string | null;
  /** The sample thread: the demo page's own address without the query, whoever opens it. */
  threadUrl: string;
  sessionToken: string | null;
}

/** The page `npm start` shows at `/`: the widget on this page's own thread of the demo site. */
export function demoPage({ siteId, threadUrl, sessionToken }: DemoOptions): string {
  const snippet = `<script src="/embed.js" async></script>\n<parley-comments site-id="${siteId ?? 'site_...'}"></parley-comments>`;
  const widget =
    siteId === null
      ? '<p>This database has no site yet: run <code>npx parley bootstrap --site-name "My blog"</code> and reload.</p>'
      : `<parley-comments site-id="${escapeHtml(siteId)}" thread-url="${escapeHtml(threadUrl)}" theme="auto"${sessionToken ? ` session-token="${escapeHtml(sessionToken)}"` : ''}></parley-comments>`;
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
<p>Readers comment as guests here. To comment as a signed-in user, mint a session with the demo site's
admin key (<code>POST /v1/sessions</code>) and open <code>/?session_token=sess_...</code>.</p>
<hr>
${widget}
</main>
<script src="/embed.js" async></script>
</body>
</html>
`;
}
