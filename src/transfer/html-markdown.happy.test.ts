import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl, type FreshDatabase } from '../../test/helper.ts';
import { loadConfig } from '../config.ts';
import { connect, type Db } from '../db/connect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { renderContent } from '../formatting/html.ts';
import { bootstrap } from '../sites/bootstrap.ts';
import { htmlToMarkdown } from './html-markdown.ts';
import { importFile } from './import.ts';

/** What a `markdown` site shows of an imported comment's HTML. */
const shown = (html: string, newlines: 'kept' | 'collapsed' = 'collapsed') => renderContent(htmlToMarkdown(html, newlines), 'markdown');

describe("a comment's HTML as Markdown that renders as it looked", () => {
  it('keeps bold, italic, strikethrough, code, line breaks and paragraphs as Markdown', () => {
    const html = '<p>A <b>bold</b>, <em>italic</em>, <strike>gone</strike> and <code>a*b</code> word,<br>a new line</p><p><strong> spaced </strong>next</p>';
    expect(htmlToMarkdown(html, 'collapsed')).toBe('A **bold**, *italic*, ~~gone~~ and `a*b` word,\\\na new line\n\n**spaced** next');
    expect(shown(html)).toBe('<p>A <strong>bold</strong>, <em>italic</em>, <s>gone</s> and <code>a*b</code> word,<br />\na new line</p>\n<p><strong>spaced</strong> next</p>\n');
  });

  it("reads WordPress's stored text as WordPress shows it: a line break is a line break, a blank line a paragraph", () => {
    expect(htmlToMarkdown('line one\nline two\n\n<b>para</b> * x\n', 'kept')).toBe('line one\\\nline two\n\n**para** \\* x');
    expect(shown('line one\nline two\n\n<b>para</b>', 'kept')).toBe('<p>line one<br />\nline two</p>\n<p><strong>para</strong></p>\n');
  });

  it('shows every character Markdown would read as markup as it was written', () => {
    const text = '2*3 = 6, snake_case, `tick`, [not a link](https://x.test), <b>tag</b>, a \\ backslash, &amp; and ~~no~~';
    const html = `<p>${text.replaceAll('&', '&amp;').replaceAll('<', '&lt;')}</p><p># not a heading<br>&gt; not a quote<br>1. not a list<br>- nor this<br>+ nor this<br>=== nor this</p>`;
    expect(shown(html)).toBe(
      '<p>2*3 = 6, snake_case, `tick`, [not a link](<a href="https://x.test" rel="nofollow ugc noopener">https://x.test</a>), &lt;b&gt;tag&lt;/b&gt;, a \\ backslash, &amp;amp; and ~~no~~</p>\n' +
        '<p># not a heading<br />\n&gt; not a quote<br />\n1. not a list<br />\n- nor this<br />\n+ nor this<br />\n=== nor this</p>\n',
    );
  });

  it('keeps quotes, lists and preformatted code with its language and indentation', () => {
    const html = '<blockquote><p>quoted <i>words</i></p><p>twice</p></blockquote><ul><li>one</li><li>two</li></ul><ol><li>first</li><li>second</li></ol>' +
      '<pre><code class="language-python">def f(x):\n    return x * 2  # `ok`\n</code></pre>';
    expect(htmlToMarkdown(html, 'collapsed')).toBe('> quoted *words*\n>\n> twice\n\n- one\n- two\n\n1. first\n2. second\n\n```python\ndef f(x):\n    return x * 2  # `ok`\n```');
    const rendered = shown(html);
    expect(rendered).toContain('<blockquote>\n<p>quoted <em>words</em></p>\n<p>twice</p>\n</blockquote>');
    expect(rendered).toContain('<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n<ol>\n<li>first</li>\n<li>second</li>\n</ol>');
    expect(rendered).toContain('<pre><code class="language-python">');
    expect(rendered.replace(/<[^>]+>/g, '')).toContain('def f(x):\n    return x * 2  # `ok`');
  });

  it('keeps http(s) and mailto links as links, their text as it was; bare addresses stay whole', () => {
    expect(htmlToMarkdown('see <a href="https://example.org/a_b?x=1&amp;y=2">this *article*</a> or https://example.org/x_y', 'collapsed')).toBe(
      'see [this \\*article\\*](<https://example.org/a_b?x=1&y=2>) or https://example.org/x_y',
    );
    expect(shown('<a href="https://example.org/a_b?x=1&amp;y=2">this</a> or https://example.org/x_y')).toBe(
      '<p><a href="https://example.org/a_b?x=1&amp;y=2" rel="nofollow ugc noopener">this</a> or <a href="https://example.org/x_y" rel="nofollow ugc noopener">https://example.org/x_y</a></p>\n',
    );
    expect(shown('<a href="mailto:a@example.org">mail me</a>')).toBe('<p><a href="mailto:a@example.org" rel="nofollow ugc noopener">mail me</a></p>\n');
  });

  it('never makes a link of a javascript:, data: or other address, however it is spelled: its text stays, as text', () => {
    for (const href of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', ' javascript:alert(1)', 'java&#x09;script:alert(1)', 'data:text/html,<script>alert(1)</script>', 'vbscript:x', '/relative']) {
      const rendered = shown(`<p><a href="${href.replaceAll('"', '&quot;')}">click</a></p>`);
      expect(rendered).toBe('<p>click</p>\n');
    }
    // Tags of any name, and the control characters conversion works with, change nothing.
    expect(htmlToMarkdown('<constructor>a</constructor> <valueOf>b</valueOf> c&#1;&#2;0&#2;&#3;d', 'collapsed')).toBe('a b c0d');
    // Markdown written as text in the source is text too.
    expect(shown('<p>[click](javascript:alert(1)) &lt;javascript:alert(1)&gt;</p>')).toBe('<p>[click](javascript:alert(1)) &lt;javascript:alert(1)&gt;</p>\n');
  });
});

describe('an HTML source imported into a site', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'parley-html-markdown-'));
  let database: FreshDatabase;
  let db: Db;
  beforeAll(async () => {
    database = await freshDatabaseUrl();
    db = connect({ ...loadConfig({}), databaseUrl: database.url });
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await db.close();
    await database.drop();
  });

  const message = '<p>Use <b>bold</b> with care: 2 * 3 = <i>six</i><br>and <a href="javascript:alert(1)">never this</a></p>';
  const disqus = (file: string) => {
    writeFileSync(
      file,
      `<?xml version="1.0" encoding="utf-8"?>
<disqus xmlns="http://disqus.com" xmlns:dsq="http://disqus.com/disqus-internals">
  <thread dsq:id="1"><link>https://blog.example.com/post</link><title>Post</title><createdAt>2020-01-01T00:00:00Z</createdAt></thread>
  <post dsq:id="10"><message><![CDATA[${message}]]></message><createdAt>2020-01-01T10:00:00Z</createdAt>
    <author><name>Zoë</name><isAnonymous>false</isAnonymous><username>zoe</username></author><thread dsq:id="1" /></post>
</disqus>`,
    );
    return file;
  };

  const importedInto = async (formatting: 'markdown' | 'plain') => {
    const siteId = (await bootstrap(db.kysely, { siteName: 'Blog', domains: [] })).site_id;
    await db.kysely.updateTable('sites').set({ formatting }).where('id', '=', siteId).execute();
    await importFile(db, { siteId, path: disqus(join(scratch, `${formatting}.xml`)) });
    return db.kysely.selectFrom('comments').select(['content', 'content_html']).where('site_id', '=', siteId).executeTakeFirstOrThrow();
  };

  it('into a markdown site: Markdown source, rendered as the comment looked (bold stays bold, a star stays a star, no javascript: link)', async () => {
    const comment = await importedInto('markdown');
    expect(comment.content).toBe('Use **bold** with care: 2 \\* 3 = *six*\\\nand never this');
    expect(comment.content_html).toBe('<p>Use <strong>bold</strong> with care: 2 * 3 = <em>six</em><br />\nand never this</p>\n');
  });

  it('into a plain site: plain text, as before', async () => {
    const comment = await importedInto('plain');
    expect(comment.content).toBe('Use bold with care: 2 * 3 = six\nand never this (javascript:alert(1))');
    expect(comment.content_html).toBe('<p>Use bold with care: 2 * 3 = six<br>\nand never this (javascript:alert(1))</p>\n');
  });
});
