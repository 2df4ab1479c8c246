/**
 * Turns a comment's HTML into Markdown source that a `markdown` site renders as the comment looked:
 * bold, italic, strikethrough, code, preformatted blocks, quotes, lists, links (http, https and
 * mailto only) and line breaks become their Markdown, and every character of the text that Markdown
 * would read as markup is escaped, so the text shows as it was written.
 */
import { LINK_SCHEMES, linkFinder } from '../formatting/markdown.ts';
import type { Formatting } from '../formatting/html.ts';
import { attribute, BLOCK, htmlTokens, htmlToText, type Newlines } from './html-text.ts';

/** A paragraph break and a line break (`<br>`), as control characters no comment keeps, decided on at the end. */
const BREAK = '\u0001';
const LINE = '\u0003';
/** A finished block (code, quote, list item) stands in the text as its number between these, safe from tidying. */
const BLOCK_MARK = '\u0002';

const EMPHASIS = new Map([['b', '**'], ['strong', '**'], ['i', '*'], ['em', '*'], ['s', '~~'], ['del', '~~'], ['strike', '~~']]);
const MARKED = new Set(['a', 'code', 'pre', 'blockquote', 'li', 'ul', 'ol', ...EMPHASIS.keys()]);
/** The characters that stand for breaks and blocks while converting: a comment's own are dropped. */
const MARKERS = /[\u0001-\u0003]/g;

interface Open {
  tag: string;
  parts: string[];
  href?: string;
  language?: string;
  /** A list's next number (ol) or null (ul). */
  next?: number | null;
}

/** Markup characters anywhere, and those that start a block at the start of a line. */
function escapeText(text: string): string {
  return text
    .replace(/[\\`*_~[\]<]/g, '\\$&')
    .replace(/&(?=#\d+;|#x[0-9a-f]+;|[a-z][a-z0-9]*;)/gi, '\\&')
    .replace(/(^|\n)([ \t]*)([#>+=-])/g, '$1$2\\$3')
    .replace(/(^|\n)([ \t]*\d{1,9})([.)])/g, '$1$2\\$3');
}

/** Text escaped, but its bare links left whole: Markdown finds them as they are, and an escape inside one would change its address. */
function markdownText(text: string): string {
  let out = '';
  let last = 0;
  for (const link of linkFinder.match(text) ?? []) {
    if (!LINK_SCHEMES.test(link.raw)) continue;
    out += escapeText(text.slice(last, link.index)) + text.slice(link.index, link.lastIndex);
    last = link.lastIndex;
  }
  return out + escapeText(text.slice(last));
}

/** A code span's or block's fence: longer than any run of backticks in the code. */
function fence(code: string, shortest: number): string {
  const longest = Math.max(0, ...Array.from(code.matchAll(/`+/g), (run) => run[0].length));
  return '`'.repeat(Math.max(shortest, longest + 1));
}

function codeSpan(code: string): string {
  const flat = code.replace(/\n/g, ' ');
  if (flat.trim() === '') return '';
  const ticks = fence(flat, 1);
  const padded = flat.startsWith('`') || flat.endsWith('`') ? ` ${flat} ` : flat;
  return `${ticks}${padded}${ticks}`;
}

/** Markdown's emphasis must touch the text it marks: white space around it moves outside. */
function emphasized(inner: string, marker: string): string {
  const match = /^(\s*)([\s\S]*?)(\s*)$/.exec(inner)!;
  if (match[2] === '' || match[2].includes(BREAK)) return inner;
  return `${match[1]}${marker}${match[2]}${marker}${match[3]}`;
}

/** A link's address as a Markdown destination, or null for one a comment may not link to. */
function destination(href: string | undefined): string | null {
  const address = href?.trim();
  if (!address || !LINK_SCHEMES.test(address) || /[\s\u0000-\u001f]/.test(address)) return null;
  return `<${address.replace(/[\\<>]/g, '\\$&')}>`;
}

export function htmlToMarkdown(html: string, newlines: Newlines): string {
  const blocks: string[] = [];
  const stack: Open[] = [{ tag: '', parts: [] }];
  const top = () => stack[stack.length - 1];
  const inside = (tags: string[]) => stack.some((open) => tags.includes(open.tag));
  /** A finished block's Markdown, kept aside: tidying the text around it leaves it as it is. */
  const block = (markdown: string) => {
    blocks.push(markdown);
    return `${BLOCK_MARK}${blocks.length - 1}${BLOCK_MARK}`;
  };
  const finished = (parts: string[]) => tidy(parts.join('')).replace(new RegExp(`${BLOCK_MARK}(\\d+)${BLOCK_MARK}`, 'g'), (_, n: string) => blocks[Number(n)]);

  const close = (open: Open) => {
    const parts = top().parts;
    const inner = open.parts.join('');
    // Emphasis inside the same emphasis (<b><strong>) is marked once: doubled markers would show.
    const marker = EMPHASIS.get(open.tag);
    if (marker) parts.push(stack.some((o) => EMPHASIS.get(o.tag) === marker) ? inner : emphasized(inner, marker));
    else if (open.tag === 'code' && !inside(['pre'])) parts.push(codeSpan(inner));
    else if (open.tag === 'pre') {
      const code = inner.replace(/^\n/, '').replace(/\n$/, '');
      const ticks = fence(code, 3);
      parts.push(BREAK, block(`${ticks}${open.language ?? ''}\n${code}\n${ticks}`), BREAK);
    } else if (open.tag === 'blockquote') {
      const quoted = finished(open.parts).split('\n').map((line) => (line === '' ? '>' : `> ${line}`));
      parts.push(BREAK, block(quoted.join('\n')), BREAK);
    } else if (open.tag === 'li') {
      const list = stack.findLast((o) => o.tag === 'ul' || o.tag === 'ol');
      const bullet = list?.next != null ? `${list.next++}.` : '-';
      const item = finished(open.parts).replace(/\n(?=.)/g, `\n${' '.repeat(bullet.length + 1)}`);
      parts.push('\n', block(`${bullet} ${item}`));
    } else if (open.tag === 'a') {
      const target = inside(['a']) ? null : destination(open.href);
      const text = inner.trim() === '' && open.href ? markdownText(open.href) : inner;
      parts.push(target ? `[${text}](${target})` : text);
    } else parts.push(inner);
  };
  const closeTo = (tag: string) => {
    // Tolerates unclosed inner tags: closes up to the nearest open `tag`, if there is one.
    const index = stack.findLastIndex((open) => open.tag === tag);
    if (index <= 0) return;
    while (stack.length > index) close(stack.pop()!);
  };

  for (const token of htmlTokens(html, newlines)) {
    if (token.kind === 'text') {
      if (inside(['pre'])) top().parts.push(token.verbatim.replace(MARKERS, ''));
      else if (inside(['code'])) top().parts.push(token.text.replace(MARKERS, ''));
      else {
        const text = markdownText(token.text.replace(MARKERS, ''));
        top().parts.push(newlines === 'kept' ? text.replace(/\n{2,}/g, BREAK).replace(/\n/g, LINE) : text);
      }
      continue;
    }
    const { tag, closing, attributes } = token;
    if (tag === 'br') top().parts.push(inside(['pre']) ? '\n' : LINE);
    else if (inside(['pre', 'code']) && tag !== 'pre' && tag !== 'code') continue;
    else if (MARKED.has(tag)) {
      if (closing) closeTo(tag);
      else {
        const language = tag === 'code' && inside(['pre']) ? /(?:^|\s)(?:language|lang)-([\w+#-]{1,30})(?:\s|$)/.exec(attribute(attributes, 'class') ?? '')?.[1] : undefined;
        if (language) stack.findLast((open) => open.tag === 'pre')!.language = language;
        if (tag === 'ul' || tag === 'ol') top().parts.push(BREAK);
        stack.push({ tag, parts: [], href: tag === 'a' ? attribute(attributes, 'href') : undefined, next: tag === 'ol' ? 1 : tag === 'ul' ? null : undefined });
      }
      if (closing && (tag === 'ul' || tag === 'ol')) top().parts.push(BREAK);
    } else if (BLOCK.has(tag)) top().parts.push(BREAK);
  }
  while (stack.length > 1) close(stack.pop()!);
  return finished(stack[0].parts);
}

/**
 * White space around line ends goes; a line break that ends a paragraph is nothing, two in a row
 * are a paragraph's end (as they look), and one inside a paragraph is Markdown's `\` at a line's end.
 */
function tidy(text: string): string {
  return text
    .replace(/[ \t\u00a0]*\n[ \t\u00a0]*/g, '\n')
    .replace(new RegExp(`[ \\t\\u00a0]*${LINE}[ \\t\\u00a0]*`, 'g'), LINE)
    .replace(new RegExp(`${LINE}{2,}`, 'g'), BREAK)
    .replace(new RegExp(`\\s*${BREAK}[\\s${BREAK}${LINE}]*`, 'g'), '\n\n')
    .replace(new RegExp(`^${LINE}+|${LINE}+$`, 'g'), '')
    .replace(new RegExp(`${LINE}(?=\\n)|\\n${LINE}`, 'g'), '\n')
    .replace(new RegExp(LINE, 'g'), '\\\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** An HTML source's comment as the site's source: Markdown for a `markdown` site, plain text for a `plain` one. */
export function htmlToSource(html: string, newlines: Newlines, formatting: Formatting): string {
  return formatting === 'markdown' ? htmlToMarkdown(html, newlines) : htmlToText(html, newlines);
}
