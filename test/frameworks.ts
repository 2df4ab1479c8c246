/**
 * What the framework packages' browser tests share (packages/{react,vue,svelte}): a blog of two
 * posts built with Vite from the package's test-app, served from its own origin, switching posts
 * without a page load against a real Parley whose site has comments in both threads.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build, type PluginOption } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, CHROMIUM_ARGS, seriousViolations } from './browser.ts';
import { chromiumForTests } from './chromium.ts';
import { startParley, type TestParley } from './helper.ts';

const CHROMIUM = chromiumForTests();
const METRICS_TOKEN = 'metrics-token-of-the-framework-tests';
const TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css' };

/** Nothing here depends on the database's dialect: the PostgreSQL pass of `npm test` skips these. */
export const SKIP_REASON = process.env.PARLEY_TEST_DATABASE_URL
  ? 'SQLite pass only: the framework packages do nothing dialect-specific'
  : !CHROMIUM
    ? 'no Chromium'
    : null;

const POSTS = [
  { path: '/posts/first', title: 'First post', comments: ['Lovely first post', 'Agreed, lovely'] },
  { path: '/posts/second', title: 'Second post', comments: ['On the second post', 'A second thought', 'And a third'] },
];

/**
 * The tests of one framework package: `appDir` holds the test app, `entry` its entry module, and
 * `plugins` the framework's Vite plugins.
 */
export function frameworkTests(name: string, appDir: string, entry: string, plugins: PluginOption[]): void {
  describe.skipIf(SKIP_REASON !== null)(`@parley/${name} in a Vite app${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ''}`, () => {
    let parley: TestParley;
    let pages: Server;
    let origin: string;
    let siteId: string;
    let browser: Browser;
    let outDir: string;

    beforeAll(async () => {
      outDir = mkdtempSync(join(tmpdir(), `parley-${name}-app-`));
      const started = performance.now();
      // The production build a site ships: Vite and the frameworks' plugins read NODE_ENV, which Vitest sets to `test`
      // (React's JSX would then call the development runtime that the production React lacks).
      const vitestEnvironment = process.env.NODE_ENV;
      process.env.NODE_ENV = 'production';
      try {
        await build({
          configFile: false,
          root: appDir,
          logLevel: 'warn',
          plugins,
          build: { outDir, emptyOutDir: true, rollupOptions: { input: join(appDir, entry), output: { entryFileNames: 'app.js', assetFileNames: '[name][extname]' } } },
        });
      } finally {
        process.env.NODE_ENV = vitestEnvironment;
      }
      const js = readFileSync(join(outDir, 'app.js'));
      console.log(`${name}: vite build in ${Math.round(performance.now() - started)} ms, app.js ${js.length} bytes`);
      [parley, pages, browser] = await Promise.all([
        startParley({ PARLEY_METRICS_TOKEN: METRICS_TOKEN }),
        servePages(),
        chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS }),
      ]);
      const host = `127.0.0.1:${(pages.address() as { port: number }).port}`;
      origin = `http://${host}`;
      const site = await parley.newSite({ domains: [host] });
      siteId = site.site_id;
      for (const post of POSTS) {
        for (const content of post.comments) {
          const body = { site_id: siteId, thread_url: origin + post.path, content, author_name: 'Reader' };
          expect((await parley.request('POST', '/v1/comments', { token: site.api_key, body })).status).toBe(201);
        }
      }
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      pages?.close();
      await parley?.close();
      if (outDir) rmSync(outDir, { recursive: true, force: true });
    });

    /** The built app, and the page that starts it with this run's Parley, site and posts. */
    function servePages(): Promise<Server> {
      const server = createServer((request, response) => {
        const url = new URL(request.url ?? '/', origin);
        if (url.pathname !== '/') {
          try {
            const file = readFileSync(join(outDir, url.pathname.replace(/\.\./g, '')));
            return void response.writeHead(200, { 'content-type': TYPES[extname(url.pathname)] ?? 'application/octet-stream' }).end(file);
          } catch {
            return void response.writeHead(404).end();
          }
        }
        const config = {
          server: parley.url,
          siteId,
          posts: POSTS.map((post) => ({ url: origin + post.path, title: post.title })),
          theme: url.searchParams.get('theme') ?? undefined,
          remount: url.searchParams.has('remount'),
        };
        const dark = config.theme === 'dark' ? '<style>body{background:#17171c;color:#eee}</style>' : '';
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>A blog in ${name}</title>${dark}</head>
<body><div id="app"></div><script>window.PARLEY_TEST = ${JSON.stringify(config)}</script><script type="module" src="/app.js"></script></body></html>`);
      });
      return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
    }

    /** A page of the app whose EventSources are counted as the page opens and closes them. */
    async function open(params: Record<string, string> = {}, viewport = { width: 760, height: 900 }): Promise<Page> {
      const page = await browser.newPage({ viewport });
      await page.addInitScript(() => {
        const open = new Set<EventSource>();
        (window as unknown as { openStreams: Set<EventSource> }).openStreams = open;
        window.EventSource = class extends EventSource {
          constructor(url: string | URL, init?: EventSourceInit) {
            super(url, init);
            open.add(this);
          }
          close(): void {
            open.delete(this);
            super.close();
          }
        };
      });
      await page.goto(`${origin}/?${new URLSearchParams(params)}`);
      return page;
    }

    /** The widget shows exactly this post's comments: each once, no element id twice. */
    async function showsThread(page: Page, post: (typeof POSTS)[number]): Promise<void> {
      await expect.poll(() => page.locator('parley-comments .text').allTextContents(), { timeout: 10_000 }).toEqual([...post.comments].reverse());
      const shadow = await page.locator('parley-comments').evaluateAll((widgets) =>
        widgets.map((widget) => ({ comments: widget.shadowRoot!.querySelectorAll('article.c').length, ids: Array.from(widget.shadowRoot!.querySelectorAll('[id]'), (e) => e.id) })),
      );
      expect(shadow).toHaveLength(1);
      expect(shadow[0].comments).toBe(post.comments.length);
      expect(new Set(shadow[0].ids).size).toBe(shadow[0].ids.length);
    }

    /** Streams of the thread open in the page (the EventSources not closed) and on the server. */
    async function expectOneStreamOf(page: Page, post: (typeof POSTS)[number]): Promise<void> {
      const thread = encodeURIComponent(origin + post.path);
      await expect
        .poll(() => page.evaluate(() => Array.from((window as unknown as { openStreams: Set<EventSource> }).openStreams, (source) => source.url)), { timeout: 10_000 })
        .toEqual([expect.stringContaining(`thread_url=${thread}`)]);
      await expect.poll(() => serverStreams(), { timeout: 10_000 }).toBe(1);
    }

    async function serverStreams(): Promise<number> {
      const metrics = await parley.request<string>('GET', '/metrics', { token: METRICS_TOKEN });
      return Number(/^parley_live_streams_open (\d+)$/m.exec(metrics.body)?.[1]);
    }

    /** The document's listeners of this type (a live connection listens to visibilitychange). */
    async function documentListeners(page: Page, type: string): Promise<number> {
      const cdp = await page.context().newCDPSession(page);
      const { result } = await cdp.send('Runtime.evaluate', { expression: 'document' });
      const { listeners } = await cdp.send('DOMDebugger.getEventListeners', { objectId: result.objectId! });
      await cdp.detach();
      return listeners.filter((listener) => listener.type === type).length;
    }

    async function switchTo(page: Page, post: (typeof POSTS)[number]): Promise<void> {
      await page.getByRole('button', { name: post.title }).click();
    }

    /** Each post's count beside its link, when this server has the count element. */
    async function expectCounts(page: Page): Promise<void> {
      const counts = page.locator('parley-count');
      expect(await counts.evaluateAll((elements) => elements.map((element) => element.getAttribute('thread-url')))).toEqual(POSTS.map((post) => origin + post.path));
      if ((await fetch(`${parley.url}/embed/count.js`)).status !== 200) return;
      await expect
        .poll(() => counts.evaluateAll((elements) => elements.map((element) => /\d+/.exec((element.shadowRoot ?? element).textContent ?? '')?.[0])))
        .toEqual(POSTS.map((post) => String(post.comments.length)));
    }

    it('shows the other post’s thread after a switch, its comments once, with one stream left open and the counts beside the posts', async () => {
      const page = await open();
      await showsThread(page, POSTS[0]);
      await expectOneStreamOf(page, POSTS[0]);
      const listening = await documentListeners(page, 'visibilitychange');
      expect(listening).toBeGreaterThan(0);

      await switchTo(page, POSTS[1]);
      await showsThread(page, POSTS[1]);
      await expectOneStreamOf(page, POSTS[1]);
      await switchTo(page, POSTS[0]);
      await showsThread(page, POSTS[0]);
      await expectOneStreamOf(page, POSTS[0]);
      expect(await documentListeners(page, 'visibilitychange')).toBe(listening);
      await expectCounts(page);
      // One embed.js however often the widget was drawn.
      expect(await page.locator(`script[src="${parley.url}/embed.js"]`).count()).toBe(1);
      await page.close();
    });

    it('leaves no stream of a post the reader left before its thread had loaded, when each post has its own widget', async () => {
      const page = await open({ remount: '1' });
      await showsThread(page, POSTS[0]);
      const listening = await documentListeners(page, 'visibilitychange');
      // Threads answer slowly, so each switch removes a widget still loading its thread.
      await page.route((url) => url.origin === parley.url && url.pathname === '/v1/comments', async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 400));
        await route.continue();
      });
      await switchTo(page, POSTS[1]);
      await switchTo(page, POSTS[0]);
      await switchTo(page, POSTS[1]);
      await showsThread(page, POSTS[1]);
      await expectOneStreamOf(page, POSTS[1]);
      // A stream opened late by a removed widget would show up after the slow answers.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await expectOneStreamOf(page, POSTS[1]);
      expect(await documentListeners(page, 'visibilitychange')).toBe(listening);
      await page.close();
    });

    it('draws the thread light, dark and at phone width with no serious accessibility violation (screenshots)', async () => {
      const shots = join(ARTIFACTS, 'packages');
      mkdirSync(shots, { recursive: true });
      for (const [label, params, viewport] of [
        ['light', {}, undefined],
        ['dark', { theme: 'dark' }, undefined],
        ['phone', {}, { width: 390, height: 844 }],
      ] as const) {
        const page = await open(params, viewport);
        await switchTo(page, POSTS[1]);
        await showsThread(page, POSTS[1]);
        expect(await seriousViolations(page)).toEqual([]);
        await page.screenshot({ path: join(shots, `${name}-${label}.png`), fullPage: true });
        await page.close();
      }
    });
  });
}
