import { normalisedText } from '../text.ts';

/**
 * The hashed feature space: every word falls into one of these buckets, so a site's model is at
 * most this many pairs of counts (1 MB in memory) whatever it has read. On the benchmark's corpus
 * 2^16 buckets lost 2 points of recall to collisions, 2^18 gained one (DOCS-NOTES-a.md).
 */
export const BUCKETS = 1 << 17;

/** Characters of a text the model reads: any comment, and the start of a long mail. */
const READ_CHARACTERS = 20_000;
const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’_-]*|[$€£¥%!?]/gu;

/** FNV-1a over the UTF-16 units. */
function bucketOf(word: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    hash ^= word.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) & (BUCKETS - 1);
}

/**
 * A text's features: its words (NFKC, lower case, invisible characters gone), each counted once (a
 * word said ten times is one feature: spam repeats to outweigh). Word pairs and character n-grams
 * were measured too and read worse: naive Bayes counts the n-grams of one word as independent
 * evidence, and is then sure of itself for the wrong reasons. Sorted bucket numbers.
 */
export function featuresOf(content: string): Uint32Array {
  const words = normalisedText(content.slice(0, READ_CHARACTERS)).toLowerCase().match(WORD) ?? [];
  const buckets = new Set<number>();
  for (const word of words) buckets.add(bucketOf(word));
  return Uint32Array.from(buckets).sort();
}
