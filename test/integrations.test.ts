import { readFileSync } from 'node:fs';
import { transform } from 'esbuild';
import { DomUtils, parseDocument } from 'htmlparser2';
import { Liquid } from 'liquidjs';
import { describe, expect, it } from 'vitest';
import { renderGoTemplate } from './integrations/go-template.ts';
import { enqueuedScripts, renderPhpPrintfs, renderPhpTemplate } from './integrations/php.ts';
import { astroToTsx, bundleModules, PARLEY_REACT_CONTRACT, renderJsx } from './integrations/jsx.ts';

/**
 * Every snippet of the integration guides (docs/integrations/*.md), rendered as the site's tool
 * would render it, then searched for Parley's elements. A snippet is a fenced block whose first or
 * second line names where it goes (`file: …` or `paste into: …`).
 *
 * Liquid (Jekyll, Eleventy) runs in liquidjs, with Jekyll's `absolute_url` and `relative_url` as
 * Jekyll defines them. JSX (Next.js, and Astro's templates, which in these guides are plain JSX)
 * is compiled by esbuild and rendered by a small renderer (./integrations/jsx.ts); `next/*` and
 * `astro:content` are replaced by stand-ins giving the sample posts, and `@parley/react` by the
 * agreed contract of its components (props checked, elements drawn). Hugo's Go templates, PHP and
 * Ghost's Handlebars do not run in Node: the snippets' expressions are evaluated by small stand-ins
 * that know only the constructs the guides use, so a snippet using anything else fails the test
 * instead of passing unread.
 */

const GUIDES = ['astro', 'nextjs', 'hugo', 'jekyll', 'eleventy', 'wordpress', 'ghost'];
const PARLEY = 'https://comments.example.com';
const SITE_ID = 'site_…';
const SITE = 'https://blog.example.com';
const POSTS = [
  { slug: 'hello-world', title: 'Hello, world' },
  { slug: 'second-post', title: 'Second post' },
];

interface Snippet {
  lang: string;
  code: string;
}

const MARKER = /(?:file|paste into): (.+?)\s*(?:\*\/\}\}|\{% endcomment %\}|--\}\}|-->|\?>)?$/;

/** The guide's snippets by the place they name, and its unnamed blocks in order. */
function snippetsOf(guide: string): { named: Map<string, Snippet>; unnamed: Snippet[]; used: Set<string> } {
  const text = readFileSync(`docs/integrations/${guide}.md`, 'utf8');
  const named = new Map<string, Snippet>();
  const unnamed: Snippet[] = [];
  for (const [, lang, code] of text.matchAll(/```([\w-]+)\n([\s\S]*?)```/g)) {
    const marker = code.split('\n').slice(0, 2).map((line) => MARKER.exec(line)?.[1]).find(Boolean);
    if (marker) named.set(marker, { lang, code });
    else unnamed.push({ lang, code });
  }
  return { named, unnamed, used: new Set() };
}

/** Reads guide snippets, remembering which were read, so that none goes unchecked. */
function reader(guide: string) {
  const snippets = snippetsOf(guide);
  const get = (name: string): string => {
    const snippet = snippets.named.get(name);
    if (!snippet) throw new Error(`docs/integrations/${guide}.md has no snippet for ${name}`);
    snippets.used.add(name);
    return snippet.code;
  };
  const unchecked = () => [...snippets.named.keys()].filter((name) => !snippets.used.has(name));
  return { get, unnamed: snippets.unnamed, unchecked };
}

const elements = (html: string, name: string) => DomUtils.getElementsByTagName(name, parseDocument(html).children, true);

function expectScript(html: string, path: string): void {
  const scripts = elements(html, 'script').filter((script) => script.attribs.src === `${PARLEY}${path}`);
  expect(scripts, `one <script src="${PARLEY}${path}"> in:\n${html}`).toHaveLength(1);
  expect(scripts[0].attribs).toHaveProperty('async');
}

/** The post page: its thread, named by the post's address, and the widget's script. */
function expectThread(html: string, thread: string, { script = true } = {}): void {
  const widgets = elements(html, 'parley-comments');
  expect(widgets, html).toHaveLength(1);
  expect(widgets[0].attribs).toMatchObject({ 'site-id': SITE_ID, 'thread-url': thread });
  if (script) expectScript(html, '/embed.js');
}

/** A list page: one count per post, each named as the post page names its thread, and count.js once. */
function expectCounts(html: string, threads: string[], { script = true } = {}): void {
  const counts = elements(html, 'parley-count');
  expect(counts.map((count) => count.attribs['site-id'])).toEqual(threads.map(() => SITE_ID));
  expect(counts.map((count) => count.attribs['thread-url']).sort()).toEqual([...threads].sort());
  if (script) expectScript(html, '/embed/count.js');
}

function expectFeedLink(html: string, thread: string): void {
  const links = elements(html, 'link').filter((link) => link.attribs.type === 'application/atom+xml');
  expect(links, html).toHaveLength(1);
  expect(links[0].attribs.rel).toBe('alternate');
  const href = new URL(links[0].attribs.href);
  expect(`${href.origin}${href.pathname}`).toBe(`${PARLEY}/v1/feeds/thread.atom`);
  expect(Object.fromEntries(href.searchParams)).toEqual({ site_id: SITE_ID, thread_url: thread });
}

function expectRecent(html: string): void {
  const recent = elements(html, 'parley-recent');
  expect(recent, html).toHaveLength(1);
  expect(recent[0].attribs['site-id']).toBe(SITE_ID);
  expect(Number(recent[0].attribs.limit)).toSatisfy((limit: number) => Number.isInteger(limit) && limit >= 1 && limit <= 50);
  expectScript(html, '/embed/recent.js');
}

const frontMatter = /^---\n[\s\S]*?\n---\n/;
/** `key: "value"`, `key = 'value'` or `KEY=value`, as the guides' settings files write them. */
const setting = (text: string, key: string) => new RegExp(`^\\s*${key}\\s*[:=]\\s*['"]?([^'"\\n]+)`, 'm').exec(text)?.[1];

describe('the integration guides', () => {
  it('are all listed in the guides index', () => {
    const index = readFileSync('docs/integrations/README.md', 'utf8');
    for (const guide of GUIDES) expect(index).toContain(`](${guide}.md)`);
  });

  it('Jekyll: the includes draw the thread, the feed link, the counts and recent comments', async () => {
    const guide = reader('jekyll');
    const config = guide.get('_config.yml');
    const site = { url: setting(config, 'url'), baseurl: '', parley: { server: setting(config, 'server'), site_id: setting(config, 'site_id') } };
    const posts = POSTS.map((post) => ({ ...post, url: `/2026/11/27/${post.slug}.html` }));
    const liquid = new Liquid({
      jekyllInclude: true,
      strictVariables: true,
      strictFilters: true,
      templates: Object.fromEntries(['parley-comments.html', 'parley-feed.html', 'parley-count.html', 'parley-recent.html'].map((name) => [name, guide.get(`_includes/${name}`)])),
    });
    // Jekyll's own filters, as Jekyll defines them: the site's url and baseurl before a path.
    liquid.registerFilter('relative_url', (path: string) => `${site.baseurl}${path}`);
    liquid.registerFilter('absolute_url', (path: string) => new URL(`${site.baseurl}${path}`, site.url).href);
    const page = { url: posts[0].url, title: posts[0].title, collection: 'posts' };
    const post = await liquid.parseAndRender('{% include parley-feed.html %}<main></main>{% include parley-comments.html %}', { site, page });
    expectThread(post, `${SITE}${posts[0].url}`);
    expectFeedLink(post, `${SITE}${posts[0].url}`);
    const index = await liquid.parseAndRender(guide.get('index.html').replace(frontMatter, ''), { site: { ...site, posts }, page: { url: '/' } });
    expectCounts(index, posts.map((each) => `${SITE}${each.url}`));
    expectRecent(await liquid.parseAndRender('{% include parley-recent.html %}', { site }));
    expect(guide.unchecked()).toEqual([]);
  });

  it('Eleventy: the layout and the index draw the thread, the feed link, the counts and recent comments', async () => {
    const guide = reader('eleventy');
    const [site, parley] = guide.unnamed.filter((block) => block.lang === 'json').map((block) => JSON.parse(block.code));
    const liquid = new Liquid({
      strictVariables: true,
      strictFilters: true,
      templates: { 'parley-feed.liquid': guide.get('_includes/parley-feed.liquid'), 'parley-recent.liquid': guide.get('_includes/parley-recent.liquid') },
    });
    const posts = POSTS.map((post) => ({ url: `/posts/${post.slug}/`, data: { title: post.title } }));
    const data = { site, parley, title: POSTS[0].title, tags: ['posts'], content: '<p>…</p>', page: { url: posts[0].url } };
    const post = (await liquid.parseAndRender('{% include "parley-feed.liquid" %}', data)) + (await liquid.parseAndRender(guide.get('_includes/layouts/post.liquid').replace(frontMatter, ''), data));
    expectThread(post, `${SITE}/posts/hello-world/`);
    expectFeedLink(post, `${SITE}/posts/hello-world/`);
    const index = await liquid.parseAndRender(guide.get('index.liquid').replace(frontMatter, ''), { site, parley, collections: { posts }, page: { url: '/' } });
    expectCounts(index, posts.map((each) => `${SITE}${each.url}`));
    expectRecent(await liquid.parseAndRender('{% include "parley-recent.liquid" %}', { site, parley }));
    expect(guide.unchecked()).toEqual([]);
  });

  it('Hugo: the partials draw the thread, the feed link, the counts and recent comments', () => {
    const guide = reader('hugo');
    const config = guide.get('hugo.toml');
    const Site = {
      Params: { parley: { server: setting(config, 'server'), site_id: setting(config, 'site_id') } },
      RegularPages: [] as object[],
    };
    const pages = POSTS.map((post) => ({ Permalink: new URL(`/posts/${post.slug}/`, setting(config, 'baseURL')).href, RelPermalink: `/posts/${post.slug}/`, Title: post.title, IsPage: true, Site }));
    Site.RegularPages = pages;
    const partials = Object.fromEntries(['comments', 'feed', 'count', 'recent'].map((name) => [`parley/${name}.html`, guide.get(`layouts/_partials/parley/${name}.html`)]));
    const post = renderGoTemplate('{{ partial "parley/feed.html" . }}<main></main>{{ partial "parley/comments.html" . }}', pages[0], partials);
    expectThread(post, `${SITE}/posts/hello-world/`);
    expectFeedLink(post, `${SITE}/posts/hello-world/`);
    expectCounts(renderGoTemplate(guide.get('layouts/home.html'), { Site, Title: 'Blog', IsPage: false }, partials), pages.map((page) => page.Permalink));
    expectRecent(renderGoTemplate('{{ partial "parley/recent.html" . }}', pages[0], partials));
    expect(guide.unchecked()).toEqual([]);
  });

  it('WordPress: the child theme draws the thread, the feed link and the counts, in block and classic themes', () => {
    const guide = reader('wordpress');
    const functions = guide.get('wp-content/themes/your-child-theme/functions.php');
    const permalinks = POSTS.map((post) => `${SITE}/${post.slug}/`);
    // The post page: the scripts enqueued when is_singular('post'), then what the_content and
    // wp_head callbacks print. A list: the other branch's scripts, and a count per post.
    const singular = /if \( is_singular\( 'post' \) \) \{([\s\S]*?)\} else \{([\s\S]*?)\}/.exec(functions)!;
    const post = enqueuedScripts(functions, singular[1], permalinks[0]) + renderPhpPrintfs(functions, ['the_content', 'wp_head'], permalinks[0]);
    expectThread(post, permalinks[0]);
    expectFeedLink(post, permalinks[0]);
    const count = (permalink: string) => renderPhpPrintfs(functions, ['parley_count'], permalink);
    const blockTheme = enqueuedScripts(functions, singular[2], permalinks[0]) + permalinks.map((permalink) => `<h2>…</h2>${count(permalink)}`).join('');
    expect(functions).toMatch(/render_block_core\/post-title[\s\S]*return \$html \. parley_count\( \$id \);/);
    expectCounts(blockTheme, permalinks);
    const part = guide.get('wp-content/themes/your-child-theme/template-parts/content.php');
    const classic = enqueuedScripts(functions, singular[2], permalinks[0]) + permalinks.map((permalink) => renderPhpTemplate(part, permalink, { parley_count: () => count(permalink) })).join('');
    expectCounts(classic, permalinks);
    expectRecent(guide.get('a Custom HTML block'));
    expect(guide.unchecked()).toEqual([]);
  });

  it('Ghost: code injection and the theme draw the thread, the feed link, the counts and recent comments', () => {
    const guide = reader('ghost');
    const permalinks = POSTS.map((post) => `${SITE}/${post.slug}/`);
    // Handlebars as Ghost renders these snippets on a post page (or in a post's card): the block
    // helpers `is "post"` and `post` open, and each expression takes the post's value.
    const handlebars = (template: string, permalink: string, title: string) =>
      template
        .replace(/\{\{!--[\s\S]*?--\}\}/g, '')
        .replace(/\{\{[#/](is "post"|is|post)\}\}/g, '')
        .replaceAll('{{url absolute="true"}}', permalink)
        .replaceAll('{{encode (url absolute="true")}}', encodeURIComponent(permalink))
        .replaceAll('{{title}}', title)
        .replace(/\{\{[^}]*\}\}/, (unknown) => {
          throw new Error(`the Ghost stand-in does not know ${unknown}`);
        });
    const footer = guide.get('Settings › Code injection › Site footer');
    const post = handlebars(guide.get('default.hbs'), permalinks[0], POSTS[0].title) + handlebars(guide.get('post.hbs'), permalinks[0], POSTS[0].title) + footer;
    expectThread(post, permalinks[0]);
    expectFeedLink(post, permalinks[0]);
    const home = permalinks.map((permalink, i) => handlebars(guide.get('partials/post-card.hbs'), permalink, POSTS[i].title)).join('') + footer;
    expectCounts(home, permalinks);
    expectRecent(guide.get('an HTML card, or your theme\'s sidebar'));
    expect(guide.unchecked()).toEqual([]);
  });

  it('Astro: the components and the index draw the thread, the feed link, the counts and recent comments', async () => {
    const guide = reader('astro');
    const astro = (name: string) => astroToTsx(guide.get(name));
    const modules: Record<string, { code: string; loader: 'ts' | 'tsx' }> = {
      'src/parley.ts': { code: guide.get('src/parley.ts'), loader: 'ts' },
      'src/components/Comments.astro': { code: astro('src/components/Comments.astro'), loader: 'tsx' },
      'src/components/CommentsFeed.astro': { code: astro('src/components/CommentsFeed.astro'), loader: 'tsx' },
      'src/components/RecentComments.astro': { code: astro('src/components/RecentComments.astro'), loader: 'tsx' },
      'src/pages/index.astro': { code: astro('src/pages/index.astro'), loader: 'tsx' },
      'astro:content': { code: `export async function getCollection(name) { return name === 'blog' ? ${JSON.stringify(POSTS.map((post) => ({ id: post.slug, data: { title: post.title } })))} : []; }`, loader: 'ts' },
    };
    const entry = `export { default as Comments } from 'src/components/Comments.astro';
      export { default as CommentsFeed } from 'src/components/CommentsFeed.astro';
      export { default as RecentComments } from 'src/components/RecentComments.astro';
      export { default as Index } from 'src/pages/index.astro';`;
    const bundle = await bundleModules(entry, modules, { 'import.meta.env.SITE': JSON.stringify(`${SITE}/`) });
    // An Astro component is called with Astro.props, as Astro calls it.
    const component = (name: keyof typeof bundle, props: object) => renderJsx(bundle[name]({ props }));
    const post = (await component('CommentsFeed', { path: '/blog/hello-world/' })) + (await component('Comments', { path: '/blog/hello-world/' }));
    expectThread(post, `${SITE}/blog/hello-world/`);
    expectFeedLink(post, `${SITE}/blog/hello-world/`);
    expectCounts(await component('Index', {}), POSTS.map((p) => `${SITE}/blog/${p.slug}/`));
    expectRecent(await component('RecentComments', {}));
    expect(guide.unchecked()).toEqual([]);
  });

  it('Next.js: the client components and the pages draw the thread, the feed link, the counts and recent comments', async () => {
    const guide = reader('nextjs');
    const env = guide.get('.env.local');
    const client = guide.get('app/components/parley.tsx');
    // usePathname needs a client component: the file must say so before anything else.
    expect(client.split('\n')[1]).toBe("'use client';");
    expect(guide.get('app/components/recent-comments.tsx').split('\n')[1]).toBe("'use client';");
    await transform(guide.get('app/parley-recent.d.ts'), { loader: 'ts' });
    const modules: Record<string, { code: string; loader: 'ts' | 'tsx' }> = {
      '@/lib/parley': { code: guide.get('lib/parley.ts'), loader: 'ts' },
      '@/app/components/parley': { code: client, loader: 'tsx' },
      'app/components/recent-comments': { code: guide.get('app/components/recent-comments.tsx'), loader: 'tsx' },
      'app/blog/[slug]/page': { code: guide.get('app/blog/[slug]/page.tsx'), loader: 'tsx' },
      'app/blog/page': { code: guide.get('app/blog/page.tsx'), loader: 'tsx' },
      '@/lib/posts': {
        code: `const posts = ${JSON.stringify(POSTS.map((post) => ({ ...post, html: '<p>…</p>' })))};
          export async function getPosts() { return posts; }
          export async function getPost(slug) { return posts.find((post) => post.slug === slug); }`,
        loader: 'ts',
      },
      // What the page's path is during a render (set by the test), as the router would give it.
      'next/navigation': { code: 'export function usePathname() { return globalThis.__pathname; }', loader: 'ts' },
      'next/link': { code: "import { jsx } from 'stub/jsx-runtime'; export default function Link({ href, children }) { return jsx('a', { href, children }); }", loader: 'ts' },
      // next/script puts a script with this src into the page.
      'next/script': { code: "import { jsx } from 'stub/jsx-runtime'; export default function Script({ src }) { return jsx('script', { src, async: true }); }", loader: 'ts' },
      '@parley/react': { code: PARLEY_REACT_CONTRACT, loader: 'ts' },
    };
    const entry = `export * as post from 'app/blog/[slug]/page';
      export { default as Blog } from 'app/blog/page';
      export { RecentComments } from 'app/components/recent-comments';`;
    const define = Object.fromEntries(['NEXT_PUBLIC_PARLEY_URL', 'NEXT_PUBLIC_PARLEY_SITE_ID', 'NEXT_PUBLIC_SITE_URL'].map((key) => [`process.env.${key}`, JSON.stringify(setting(env, key))]));
    const bundle = await bundleModules(entry, modules, define);
    const params = Promise.resolve({ slug: 'hello-world' });
    (globalThis as { __pathname?: string }).__pathname = '/blog/hello-world';
    const metadata = await bundle.post.generateMetadata({ params });
    const feedLink = `<link rel="alternate" type="application/atom+xml" href="${metadata.alternates.types['application/atom+xml'].replaceAll('&', '&amp;')}">`;
    const post = feedLink + (await renderJsx(bundle.post.default({ params })));
    expectThread(post, `${SITE}/blog/hello-world`, { script: false });
    expectFeedLink(post, `${SITE}/blog/hello-world`);
    expectCounts(await renderJsx(bundle.Blog()), POSTS.map((p) => `${SITE}/blog/${p.slug}`), { script: false });
    expectRecent(await renderJsx(bundle.RecentComments()));
    expect(guide.unchecked()).toEqual([]);
  });
});
