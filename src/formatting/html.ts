import { renderMarkdown } from './markdown.ts';
import type { MentionNames } from './mentions.ts';
import { renderPlain } from './plain.ts';
import { sanitizeHtml } from './sanitize.ts';

export const FORMATTINGS = ['markdown', 'plain'] as const;
export type Formatting = (typeof FORMATTINGS)[number];

/** The source as sanitized HTML, its mentions linked to the names `names` gives. */
export function renderContent(source: string, formatting: Formatting, names: MentionNames = new Map()): string {
  return sanitizeHtml(formatting === 'markdown' ? renderMarkdown(source, names) : renderPlain(source, names));
}
