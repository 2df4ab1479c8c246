import { FilterXSS } from 'xss';

/**
 * The elements and attributes a comment's HTML may hold: what the renderers draw, nothing else.
 * The renderers escape everything they are given, so this pass removes nothing today; it is there
 * so that a mistake in them, or in a parser upgrade, cannot reach a page.
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

const filter = new FilterXSS({
  whiteList: ALLOWED_ELEMENTS,
  stripIgnoreTag: true,
  stripIgnoreTagBody: ['script', 'style', 'iframe', 'object', 'embed', 'template', 'noscript', 'svg', 'math'],
  allowCommentTag: false,
  css: false,
});

export function sanitizeHtml(html: string): string {
  return filter.process(html);
}
