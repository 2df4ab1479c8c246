import { describe, expect, it } from 'vitest';
import { htmlToText } from './html-text.ts';

describe("a comment's HTML as Parley's plain text", () => {
  it('decodes entities once and keeps paragraphs, line breaks, quotes and lists', () => {
    expect(htmlToText('<p>Tom &amp;amp; Jerry &eacute;t&#233; &#x1F600;</p>', 'collapsed')).toBe('Tom &amp; Jerry été 😀');
    expect(htmlToText('<p>one\n two</p><p>three<br/>four</p>', 'collapsed')).toBe('one two\n\nthree\nfour');
    expect(htmlToText('<blockquote><p>quoted</p><p>twice</p></blockquote>reply', 'collapsed')).toBe('> quoted\n>\n> twice\n\nreply');
    expect(htmlToText('<ul><li>a</li><li>b</li></ul>after', 'collapsed')).toBe('- a\n- b\n\nafter');
    expect(htmlToText('line one\nline two\n\n<b>para</b>', 'kept')).toBe('line one\nline two\n\npara');
  });

  it('decodes every named reference of HTML, the rare ones too, in text and in a link', () => {
    expect(htmlToText('&ffllig;, &NotNestedLessLess; and &amp;ffllig;', 'collapsed')).toBe('ﬄ, ⪡̸ and &ffllig;');
    expect(htmlToText('<a href="https://example.org/?a=1&amp;b=2">search</a>', 'collapsed')).toBe('search (https://example.org/?a=1&b=2)');
  });

  it("keeps a link's address unless its text is that address or a shortened form of it", () => {
    expect(htmlToText('<a href="https://example.org/x">this article</a>', 'collapsed')).toBe('this article (https://example.org/x)');
    expect(htmlToText('<a href="https://example.org/x">https://example.org/x</a>', 'collapsed')).toBe('https://example.org/x');
    expect(htmlToText('<a href="https://www.example.org/a/very/long/path">example.org/a/very/lo…</a>', 'collapsed')).toBe('https://www.example.org/a/very/long/path');
    expect(htmlToText('<a href="https://example.org/y"></a>', 'collapsed')).toBe('https://example.org/y');
  });

  it('drops scripts and styles with their text, and tolerates unclosed tags', () => {
    expect(htmlToText('<script>alert(1)</script><style>p{}</style><p>kept <i>text', 'collapsed')).toBe('kept text');
  });
});
