import { Element, Text, type ChildNode } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import { LINK_REL } from './markdown.ts';
import { MENTION } from './mentions.ts';
import { FORMATTINGS, renderContent } from './html.ts';
import { ALLOWED_ELEMENTS, sanitizeHtml } from './sanitize.ts';
import { HOSTILE_NAMES, LONG_VECTORS, offences, XSS_VECTORS, type XssVector } from './xss-corpus.ts';

/** The page a comment is shown on: relative links resolve against it, as in a browser. */
const PAGE = 'https://blog.example.com/post';

/** What a browser makes of an href: its scheme once entities, whitespace and control characters are dealt with. */
function protocolOf(href: string): string {
  try {
    return new URL(href, PAGE).protocol;
  } catch {
    return '(unparsable)';
  }
}

/** The output as an HTML parser reads it (entities decoded): every offence against the rules, and its text. */
function read(html: string): { offences: string[]; text: string } {
  const found: string[] = [];
  let text = '';
  const walk = (nodes: ChildNode[]) => {
    for (const node of nodes) {
      if (node instanceof Text) text += node.data;
      else if (node instanceof Element) {
        const attributes = Object.entries(node.attribs);
        const href = node.attribs.href;
        found.push(...offences({ name: node.name, attributes, protocol: href === undefined ? undefined : protocolOf(href) }, ALLOWED_ELEMENTS, LINK_REL));
        walk(node.children);
      } else found.push(`node of type ${node.type}`);
    }
  };
  walk(parseDocument(html).children);
  return { offences: found, text };
}

/** A plain site's text, as a reader reads it: the source with its mentions as names: the user's own, or as typed for an unknown id. */
const plainText = (source: string) => source.replace(MENTION, (_mention, typed: string, id: string) => `@${HOSTILE_NAMES.get(id) ?? typed}`);
const visible = (text: string) => text.replace(/\s+/g, '');

describe('the sanitizer on its own', () => {
  // What the renderers draw never holds raw HTML; taking each source as HTML tries the last line of defence.
  it.each(XSS_VECTORS.map((vector) => [vector.name, vector] as [string, XssVector]))('passes only allowed HTML of %s taken as HTML', (_name, vector) => {
    const html = sanitizeHtml(vector.source);
    // `rel` is the renderers' to add: the sanitizer keeps, and does not invent, attributes.
    expect(read(html).offences.filter((offence) => !offence.startsWith('link without rel')), html).toEqual([]);
  });
});

describe.each(FORMATTINGS)('a %s comment', (formatting) => {
  it.each(XSS_VECTORS.map((vector) => [vector.name, vector] as [string, XssVector]))('draws only allowed HTML for %s', (_name, vector) => {
    const html = renderContent(vector.source, formatting, HOSTILE_NAMES);
    const { offences, text } = read(html);
    expect(offences, html).toEqual([]);
    for (const shown of vector.shows ?? []) expect(text, html).toContain(shown);
    if (formatting === 'plain') expect(visible(text), html).toBe(visible(plainText(vector.source)));
  });

  it.each(LONG_VECTORS.map((vector) => [vector.name, vector] as [string, XssVector]))('renders %s in a moment', (_name, vector) => {
    const started = performance.now();
    renderContent(vector.source, formatting, HOSTILE_NAMES);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("shows a hostile user's name as text in a mention", () => {
    const { offences, text } = read(renderContent('hi @[x](usr_x) and @[q](usr_q)', formatting, HOSTILE_NAMES));
    expect(offences).toEqual([]);
    expect(text).toContain(`@${HOSTILE_NAMES.get('usr_x')}`);
    expect(text).toContain(`@${HOSTILE_NAMES.get('usr_q')}`);
  });
});
