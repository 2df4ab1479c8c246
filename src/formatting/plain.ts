import { escapeHtml } from './escape.ts';
import { LINK_REL, LINK_SCHEMES, linkFinder } from './markdown.ts';
import { MENTION, mentionHtml, type MentionNames } from './mentions.ts';

/** Text with its bare links made links; everything else escaped, line breaks kept. */
function linkedText(text: string): string {
  let html = '';
  let last = 0;
  for (const link of linkFinder.match(text) ?? []) {
    if (!LINK_SCHEMES.test(link.url)) continue;
    html += escapeHtml(text.slice(last, link.index));
    html += `<a href="${escapeHtml(link.url)}" rel="${LINK_REL}">${escapeHtml(link.text)}</a>`;
    last = link.lastIndex;
  }
  return (html + escapeHtml(text.slice(last))).replaceAll('\n', '<br>\n');
}

/** A paragraph's text with its mentions and links. */
function paragraph(text: string, names: MentionNames): string {
  let html = '';
  let last = 0;
  for (const mention of text.matchAll(MENTION)) {
    html += linkedText(text.slice(last, mention.index)) + mentionHtml(mention[2], mention[1], names);
    last = mention.index + mention[0].length;
  }
  return `<p>${html}${linkedText(text.slice(last))}</p>\n`;
}

/** A `plain` site's comment: its text as written, in paragraphs at blank lines, with links and mentions. */
export function renderPlain(source: string, names: MentionNames): string {
  return source
    .split(/\n[ \t]*\n\s*/)
    .filter((part) => part.trim() !== '')
    .map((part) => paragraph(part, names))
    .join('');
}
