import { hash } from 'node:crypto';
import { find } from 'linkifyjs';

/**
 * Characters that show nothing, used to split a word so that a list does not see it (`c\u200Basino`)
 * or to make two copies of a text differ: zero-width space, non-joiner and joiner, the directional
 * marks and embeddings, word joiner and invisible operators, the byte-order mark, soft hyphen,
 * Mongolian vowel separator, combining grapheme joiner, Hangul fillers.
 */
const INVISIBLE = /[\u00AD\u034F\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\u3164\uFEFF\uFFA0]/g;

/**
 * The text every check reads: NFKC (full-width and styled letters become plain ones: `ｃａｓｉｎｏ`,
 * `𝐜𝐚𝐬𝐢𝐧𝐨`), invisible characters removed. The stored comment keeps what was written.
 */
export function normalisedText(content: string): string {
  return content.normalize('NFKC').replace(INVISIBLE, '');
}

/**
 * What two copies of one text share: case and runs of spaces do not count, so `Buy NOW` and
 * `buy  now` are the same text.
 */
export function textHash(normalised: string): string {
  return hash('sha256', normalised.toLowerCase().replace(/\s+/g, ' ').trim(), 'base64url');
}

/**
 * What every link linkifyjs finds holds: a dot between two characters of a name (`cheap-pills.ru`,
 * `www.x.com`), a scheme's colon before its rest (`mailto:a`, `http://`) or `localhost`. A text with
 * none of them has no link, and is not tokenised (linkifyjs took a tenth of the checks' time).
 */
const MAY_LINK = /[^\s.]\.[^\s.]|:\S|localhost/i;

/** Links in the text as linkifyjs finds them: with a scheme, `www.` or a bare domain with a known TLD (`cheap-pills.ru`). */
const linksIn = (normalised: string): string[] => (MAY_LINK.test(normalised) ? find(normalised, 'url').map((link) => link.href) : []);

export function linkCount(normalised: string): number {
  return linksIn(normalised).length;
}

/** Links an edit brings: those of the new text that the text before it did not hold. */
export function addedLinkCount(before: string, after: string): number {
  const kept = new Set(linksIn(before));
  return linksIn(after).filter((href) => !kept.has(href)).length;
}
