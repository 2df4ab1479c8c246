import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { site_id: string; api_key: string };

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
});
afterAll(() => parley.close());

const post = (content: string, siteId = site.site_id, thread = pageUrl()) =>
  parley.request('POST', '/v1/comments', { token: site.api_key, body: { thread_url: thread, site_id: siteId, content, author_name: 'Ada' } });

describe('comments rendered when they are written', () => {
  it('keeps the Markdown source in content and carries its HTML in content_html, in every view', async () => {
    const thread = pageUrl();
    const source = 'Some **bold**, _italic_ and ~~gone~~ text with `code`.\n\n> quoted\n\nSee https://example.com/a?b=1 and [docs](https://docs.example.com).';
    const created = await post(source, site.site_id, thread);
    expect(created.status).toBe(201);
    expect(created.body.content).toBe(source);
    const html = created.body.content_html;
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<em>italic</em>');
    expect(html).toContain('<s>gone</s>');
    expect(html).toContain('<code>code</code>');
    expect(html).toContain('<blockquote>\n<p>quoted</p>\n</blockquote>');
    expect(html).toContain('<a href="https://example.com/a?b=1" rel="nofollow ugc noopener">https://example.com/a?b=1</a>');
    expect(html).toContain('<a href="https://docs.example.com" rel="nofollow ugc noopener">docs</a>');
    expect(created.body).toMatchObject({ mentions: [], pinned: false, author_badges: [] });

    const list = await parley.request('GET', `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${site.site_id}`);
    expect(list.body.comments[0].content_html).toBe(html);
    const one = await parley.request('GET', `/v1/comments/${created.body.id}`);
    expect(one.body.content_html).toBe(html);
  });

  it('shows raw HTML, images and headings as text, and keeps links to http(s) and mailto only', async () => {
    const created = await post('# Title\n\n<b onclick="x()">hi</b> ![pic](https://img.example/p.png) [bad](javascript:alert(1)) [mail](mailto:a@example.com) [rel](/path)');
    const html = created.body.content_html as string;
    expect(html).toContain('<p># Title</p>');
    expect(html).toContain('&lt;b onclick=&quot;x()&quot;&gt;hi&lt;/b&gt;');
    expect(html).not.toMatch(/<img|<h1|<b |javascript:alert\(1\)"/);
    expect(html).toContain('[bad](javascript:alert(1))');
    expect(html).toContain('<a href="mailto:a@example.com" rel="nofollow ugc noopener">mail</a>');
    expect(html).toContain('[rel](/path)');
  });

  it('highlights fenced code in a language the highlighter knows, and shows any other escaped', async () => {
    const created = await post('```js\nconst a = "<b>";\n```\n\n```klingon\nx < y\n```');
    const html = created.body.content_html as string;
    expect(html).toContain('<pre><code class="language-js"><span class="hljs-keyword">const</span> a = <span class="hljs-string">&quot;&lt;b&gt;&quot;</span>;');
    expect(html).toContain('<pre><code class="language-klingon">x &lt; y\n</code></pre>');
    // Scopes of more than one word keep their class (hljs-built_in), so the themes colour them.
    const python = await post('```python\nprint(len("x"))\n```');
    expect(python.body.content_html).toContain('<span class="hljs-built_in">print</span>');
  });

  it('renders a plain site\'s text escaped, in paragraphs with line breaks and links', async () => {
    const plain = await parley.newSite();
    const patched = await parley.request('PATCH', `/api/sites/${plain.site_id}`, { token: plain.api_key, body: { formatting: 'plain' } });
    expect(patched.body.formatting).toBe('plain');
    const created = await parley.request('POST', '/v1/comments', {
      token: plain.api_key,
      body: { thread_url: pageUrl(), site_id: plain.site_id, content: '**not bold** <i>x</i>\nline two https://example.com\n\nsecond', author_name: 'Ada' },
    });
    expect(created.body.content_html).toBe(
      '<p>**not bold** &lt;i&gt;x&lt;/i&gt;<br>\nline two <a href="https://example.com" rel="nofollow ugc noopener">https://example.com</a></p>\n<p>second</p>\n',
    );
  });

  it('renders an edit again, and carries no HTML once the comment is deleted', async () => {
    const created = await post('first');
    const edited = await parley.request('PATCH', `/v1/comments/${created.body.id}`, { token: site.api_key, body: { content: 'now *emphasised*' } });
    expect(edited.body.content_html).toBe('<p>now <em>emphasised</em></p>\n');
    const deleted = await parley.request('DELETE', `/v1/comments/${created.body.id}`, { token: site.api_key });
    expect(deleted.body).toMatchObject({ content: null, content_html: null, mentions: [] });
  });
});

describe('POST /v1/comments/preview', () => {
  it('answers the HTML a comment would carry, without storing anything', async () => {
    const preview = await parley.request('POST', '/v1/comments/preview', { body: { site_id: site.site_id, content: 'a **b**' } });
    expect(preview.status).toBe(200);
    expect(preview.body).toEqual({ content_html: '<p>a <strong>b</strong></p>\n', mentions: [] });
  });

  it('refuses empty text and unknown sites with a problem', async () => {
    const empty = await parley.request('POST', '/v1/comments/preview', { body: { site_id: site.site_id, content: '   ' } });
    expect(empty.status).toBe(400);
    expect(empty.headers.get('content-type')).toContain('application/problem+json');
    const unknown = await parley.request('POST', '/v1/comments/preview', { body: { site_id: 'site_nope', content: 'x' } });
    expect(unknown.status).toBe(404);
  });
});
