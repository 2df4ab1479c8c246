import { FilterXSS } from 'xss';
import { LINK_SCHEMES } from './markdown.ts';

/**
 * The elements and attributes a comment's HTML may hold: what the renderers draw, nothing else.
 * The renderers escape everything they are given, so this pass removes little (the highlighter's
 * sub-scope classes); it is there so that a mistake in them, or in a
 * parser upgrade, cannot reach a page.
 */
export const ALLOWED_ELEMENTS: Record<string, string[]> = {
  p: [],
  br: [],
  strong: [],
  em: [],
  s: [],
  a: ['href', 'rel'],
  code: ['class'],
  pre: [],
  span: ['class', 'data-user-id'],
  blockquote: [],
  ul: [],
  ol: ['start'],
  li: [],
  hr: [],
};

/** The classes the renderers draw: a highlighted language and its tokens, and a mention. */
const CLASS_NAME = /^(?:language-[\w+#.-]+|hljs-[a-z][a-z_-]*|parley-mention)$/;

/**
 * An allowed attribute's value as the renderers write it: only their own class names (the
 * highlighter's sub-scope names, as `function_`, are dropped), links to http(s) and mailto, mention ids
 * as they are written and numbers as a list's start. Returns the attribute as it is to be written,
 * '' to drop it, or undefined for the allowlist's usual treatment (other attributes are dropped).
 */
function checkedAttribute(_tag: string, name: string, value: string, allowed: boolean): string | undefined {
  if (!allowed) return undefined;
  switch (name) {
    case 'class': {
      const kept = value.split(/\s+/).filter((token) => CLASS_NAME.test(token));
      return kept.length === 0 ? '' : `class="${kept.join(' ')}"`;
    }
    case 'href':
      return LINK_SCHEMES.test(value) ? undefined : '';
    case 'data-user-id':
      return /^usr_[0-9a-z]+$/.test(value) ? undefined : '';
    case 'start':
      return /^\d+$/.test(value) ? undefined : '';
  }
  return undefined;
}

const filter = new FilterXSS({
  whiteList: ALLOWED_ELEMENTS,
  stripIgnoreTag: true,
  stripIgnoreTagBody: ['script', 'style', 'iframe', 'object', 'embed', 'template', 'noscript', 'svg', 'math'],
  allowCommentTag: false,
  css: false,
  onTagAttr: checkedAttribute,
});

export function sanitizeHtml(html: string): string {
  return filter.process(html);
}
