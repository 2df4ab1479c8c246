/** The longest a name shown in a mail's sender or subject may be, in characters. */
const MAX_SHOWN = 60;

/** Controls, format characters (bidirectional controls, zero-width ones, the BOM) and line or paragraph separators. */
const UNSHOWABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
const LATIN = /\p{Script=Latin}/u;
/** Scripts with letters drawn like Latin ones: in one word with Latin letters, they spell a lookalike ("Pаypal", with a Cyrillic а). */
const LOOKALIKE_SCRIPTS = /[\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}\p{Script=Cherokee}]/u;

/**
 * A name as a mail's sender name or subject may show it (a site's name, a page's title): anyone
 * who runs a site names it, and the mail leaves from the operator's address. Compatibility forms
 * are folded (NFKC: fullwidth and mathematical letters become plain ones), line breaks and tabs
 * become spaces, other controls and invisible format characters are dropped, and spaces are
 * collapsed; a name with a word mixing Latin letters with lookalikes of another script, or nothing
 * left, shows `fallback` instead. At most MAX_SHOWN characters.
 */
export function shownName(name: string, fallback: string): string {
  const text = name
    .normalize('NFKC')
    .replace(UNSHOWABLE, (character) => (/\s/u.test(character) ? ' ' : ''))
    .replace(/\s+/gu, ' ')
    .trim();
  if (text === '' || text.split(' ').some((word) => LATIN.test(word) && LOOKALIKE_SCRIPTS.test(word))) return fallback;
  const characters = [...text];
  return characters.length > MAX_SHOWN ? `${characters.slice(0, MAX_SHOWN - 1).join('').trimEnd()}…` : text;
}
