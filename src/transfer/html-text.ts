/**
 * Turns a comment's HTML into Parley's plain text: entities decoded exactly once (every named
 * reference of HTML, read as a browser reads them), line breaks and
 * paragraphs kept, block quotes as `> ` lines, a link's address kept after its text unless the text
 * is that address (or a shortened form of it), every other tag dropped with its text kept.
 */
import { decodeHTML, decodeHTMLAttribute } from 'entities/decode';

export const BLOCK = new Set(['p', 'div', 'ul', 'ol', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'table', 'tr', 'hr', 'section', 'article', 'dl', 'dt', 'dd', 'figure']);
const DROPPED = new Set(['script', 'style', 'template', 'head', 'title']);
/** A paragraph break, written as a control character no comment keeps. */
const BREAK = '\u0001';

interface Open {
  tag: string;
  parts: string[];
  href?: string;
}

export function attribute(attributes: string, name: string): string | undefined {
  const match = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"'>]+))`, 'i').exec(attributes);
  return match ? decodeHTMLAttribute(match[1] ?? match[2] ?? match[3]) : undefined;
}

/** "example.com/a/very/long/pa…" is how Disqus and others shorten a link's text. */
function namesTheAddress(text: string, href: string): boolean {
  const bare = (s: string) => s.replace(/^https?:\/\//i, '').replace(/^www\./i, '').replace(/\/$/, '');
  const shown = bare(text.trim());
  const target = bare(href);
  if (shown === target || text.trim() === href) return true;
  const shortened = /(?:…|\.\.\.)$/.exec(shown);
  return shortened !== null && shown.length > 3 && target.startsWith(shown.slice(0, shortened.index));
}

function quoted(text: string): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? '>' : `> ${line}`))
    .join('\n');
}

function tidy(text: string): string {
  return text
    .replace(/[ \t\u00a0]*\n[ \t\u00a0]*/g, (m) => m.replace(/[ \t\u00a0]/g, ''))
    .replace(new RegExp(`\\s*${BREAK}[\\s${BREAK}]*`, 'g'), '\n\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export type Newlines = 'kept' | 'collapsed';

/** `verbatim`: the text with its white space as written (for preformatted text). */
export type HtmlToken = { kind: 'text'; text: string; verbatim: string } | { kind: 'tag'; tag: string; closing: boolean; attributes: string };

/**
 * A comment's HTML as its text (entities decoded, white space as `newlines` says) and tags, in order;
 * HTML comments, and scripts, styles and the like with their text, left out.
 */
export function* htmlTokens(html: string, newlines: Newlines): Generator<HtmlToken> {
  const pattern = /<!--[\s\S]*?(?:-->|$)|<(\/?)([a-zA-Z][a-zA-Z0-9]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g;
  let dropping: string | null = null;
  let at = 0;
  const text = (raw: string): HtmlToken[] => {
    if (dropping || raw === '') return [];
    const lines = raw.replace(/\r\n?/g, '\n');
    const spaced = newlines === 'kept' ? lines.replace(/[ \t]+/g, ' ') : raw.replace(/\s+/g, ' ');
    return [{ kind: 'text', text: decodeHTML(spaced), verbatim: decodeHTML(lines) }];
  };
  for (let match = pattern.exec(html); match; match = pattern.exec(html)) {
    yield* text(html.slice(at, match.index));
    at = pattern.lastIndex;
    const [, closing, rawTag, attributes] = match;
    if (!rawTag) continue;
    const tag = rawTag.toLowerCase();
    if (dropping) {
      if (closing && tag === dropping) dropping = null;
      continue;
    }
    if (DROPPED.has(tag) && !closing && !attributes.trimEnd().endsWith('/')) dropping = tag;
    else yield { kind: 'tag', tag, closing: closing === '/', attributes };
  }
  yield* text(html.slice(at));
}

/**
 * `newlines`: 'kept' where the source's line breaks mean line breaks (WordPress stores text that
 * way and adds the <p> and <br> when showing it), 'collapsed' where the source is rendered HTML.
 */
export function htmlToText(html: string, newlines: Newlines): string {
  const stack: Open[] = [{ tag: '', parts: [] }];
  const top = () => stack[stack.length - 1];
  const closeTo = (tag: string) => {
    // Tolerates unclosed inner tags: closes up to the nearest open `tag`, if there is one.
    const index = stack.findLastIndex((open) => open.tag === tag);
    if (index <= 0) return;
    while (stack.length > index) {
      const open = stack.pop()!;
      const inner = open.parts.join('');
      if (open.tag === 'blockquote') top().parts.push(BREAK, quoted(tidy(inner)), BREAK);
      else if (open.tag === 'a' && open.href && !namesTheAddress(inner, open.href)) {
        top().parts.push(inner.trim() === '' ? open.href : `${inner} (${open.href})`);
      } else if (open.tag === 'a' && open.href) top().parts.push(open.href);
      else top().parts.push(inner);
    }
  };
  for (const token of htmlTokens(html, newlines)) {
    if (token.kind === 'text') {
      top().parts.push(token.text);
      continue;
    }
    const { tag, closing, attributes } = token;
    if (tag === 'br') top().parts.push('\n');
    else if (tag === 'blockquote' || tag === 'a') {
      if (closing) closeTo(tag);
      else stack.push({ tag, parts: [], href: tag === 'a' ? attribute(attributes, 'href') : undefined });
    } else if (tag === 'li' && !closing) top().parts.push('\n- ');
    else if (BLOCK.has(tag)) top().parts.push(BREAK);
  }
  while (stack.length > 1) closeTo(top().tag);
  return tidy(stack[0].parts.join(''));
}
