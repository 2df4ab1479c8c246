import { BUCKETS } from './features.ts';

/** Additive smoothing (Lidstone): a word never seen in a kind counts this much; 1 (Laplace) let unseen words drown the evidence on the corpus. */
const SMOOTHING = 0.01;
/** Measured on the corpus (bench/classifier.ts): 0.4 puts the default threshold 0.9 at precision 0.98 and recall above 0.9. */
const TEMPERING = 0.4;

export type Label = 'spam' | 'ham';

/** A site's model in total, as its row in classifier_models holds it. */
export interface Totals {
  /** Moves with every change: an instance whose model in memory is of another version reads it again. */
  version: number;
  spamExamples: number;
  hamExamples: number;
  spamFeatures: number;
  hamFeatures: number;
}

/**
 * A site's naive Bayes model: how many decided comments of each kind held each feature bucket,
 * and how many comments of each kind it has read. Counting is all that learning does, so a
 * decision reversed later is unlearned exactly by counting it off again.
 */
export class Model {
  /** Per bucket: comments marked spam that held it, then comments approved that held it. */
  readonly counts = new Uint32Array(BUCKETS * 2);
  spamExamples = 0;
  hamExamples = 0;
  /** Features counted in each kind, over all its comments (the multinomial's denominators). */
  spamFeatures = 0;
  hamFeatures = 0;

  /** A model from its stored totals and count rows (store.ts). */
  static of(totals: Totals, rows: Iterable<{ bucket: number; spam: number; ham: number }>): Model {
    const model = new Model();
    for (const { bucket, spam, ham } of rows) {
      model.counts[bucket * 2] = spam;
      model.counts[bucket * 2 + 1] = ham;
    }
    model.spamExamples = totals.spamExamples;
    model.hamExamples = totals.hamExamples;
    model.spamFeatures = totals.spamFeatures;
    model.hamFeatures = totals.hamFeatures;
    return model;
  }

  /** Adds one comment's features under its label (the benchmark trains so, without a database). */
  learn(features: Uint32Array, label: Label): void {
    const offset = label === 'spam' ? 0 : 1;
    for (const bucket of features) this.counts[bucket * 2 + offset] += 1;
    if (label === 'spam') {
      this.spamExamples += 1;
      this.spamFeatures += features.length;
    } else {
      this.hamExamples += 1;
      this.hamFeatures += features.length;
    }
  }

  /**
   * How likely the comment is spam, 0..1: multinomial naive Bayes over its features (each once),
   * with additive smoothing and both kinds equally likely beforehand (a site that marked more spam
   * than it approved says little about the next comment). The log-odds are divided by the square
   * root of the number of features: naive Bayes adds up features that are far from independent
   * (the n-grams of one word), which makes its raw probabilities 0 or 1; so tempered, a score says
   * how sure the evidence is, and a threshold of 0.9 means something.
   */
  score(features: Uint32Array): number {
    if (features.length === 0) return 0.5;
    const spamDenominator = Math.log(this.spamFeatures + SMOOTHING * BUCKETS);
    const hamDenominator = Math.log(this.hamFeatures + SMOOTHING * BUCKETS);
    let logOdds = 0;
    for (const bucket of features) {
      logOdds += Math.log(this.counts[bucket * 2] + SMOOTHING) - spamDenominator - (Math.log(this.counts[bucket * 2 + 1] + SMOOTHING) - hamDenominator);
    }
    return 1 / (1 + Math.exp(-logOdds / features.length ** TEMPERING));
  }
}
