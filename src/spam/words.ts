import { englishRecommendedTransformers, parseRawPattern, RegExpMatcher } from 'obscenity';

/**
 * A site's word list as one obscenity matcher: each word matched with its disguises (l33t digits
 * and symbols, look-alike letters, letters repeated, case), the way obscenity's own English list is.
 * Built once per distinct list and kept (a list changes when its site's settings do).
 */
const MATCHERS_KEPT = 1_000;
const matchers = new Map<string, RegExpMatcher>();

/**
 * The recommended transformers collapse a run of one letter in the text to one (two for b, e, o, l,
 * s, g), so `caaasino` reads `casino`; a word is collapsed the same way, or `lottery` (read
 * `lotery`) would never match.
 */
const KEPT_DOUBLE = 'beolsg';

/** A word as a pattern: collapsed as the text is, obscenity's pattern syntax ([optional], ?, |, \) taken literally. */
function patternOf(word: string) {
  const collapsed = word.replace(/(.)\1+/g, (_run, letter: string) => letter.repeat(KEPT_DOUBLE.includes(letter) ? 2 : 1));
  return parseRawPattern(collapsed.replace(/[[\]?|\\]/g, (c) => `\\${c}`));
}

/** The matcher of each list as decodeSpamSettings shares it: found without joining the list's words again. */
const matcherOfList = new WeakMap<readonly string[], RegExpMatcher>();

function matcherFor(words: readonly string[]): RegExpMatcher | null {
  if (words.length === 0) return null;
  const kept = matcherOfList.get(words);
  if (kept !== undefined) return kept;
  const key = words.join('\n');
  let matcher = matchers.get(key);
  if (matcher === undefined) {
    matcher = new RegExpMatcher({ blacklistedTerms: words.map((word, id) => ({ id, pattern: patternOf(word) })), ...englishRecommendedTransformers });
    if (matchers.size >= MATCHERS_KEPT) matchers.clear();
    matchers.set(key, matcher);
  }
  matcherOfList.set(words, matcher);
  return matcher;
}

/**
 * Letters written one by one with something between them (`V I A G R A`, `c.a.s.i.n.o`, `b-u-y`),
 * run together, so a list matches the word they spell.
 */
const SPELLED_OUT = /(?<![\p{L}\p{N}])\p{L}(?:[^\p{L}\p{N}\n]{1,3}\p{L}(?![\p{L}\p{N}])){2,}/gu;

function spelledOut(text: string): string {
  return text.replace(SPELLED_OUT, (letters) => letters.replace(/[^\p{L}]/gu, ''));
}

/**
 * The first word of `words` the text holds, or null. Time is bounded by the text (at most 10,000
 * characters) and the list (at most 500 words of 50 characters): about 20 ms at worst, measured in
 * words.test.ts.
 */
export function listedWordIn(words: readonly string[], normalised: string): string | null {
  const matcher = matcherFor(words);
  if (matcher === null) return null;
  const joined = spelledOut(normalised);
  const text = joined === normalised ? normalised : `${normalised}\n${joined}`;
  const [match] = matcher.getAllMatches(text);
  return match === undefined ? null : words[match.termId];
}
