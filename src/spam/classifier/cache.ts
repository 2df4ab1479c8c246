import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { Model, type Totals } from './model.ts';
import { readCounts } from './store.ts';

/** Sites whose models an instance keeps in memory (1 MB each), the least recently used forgotten first. */
const MODELS_KEPT = 64;

interface Entry {
  totals: Totals;
  /** Loaded once the model is active (enough examples of each kind). */
  model: Model | null;
}

/** Whether the model has seen enough decisions of each kind to be trusted. */
export const isActive = (totals: Pick<Totals, 'spamExamples' | 'hamExamples'>, minExamples: number) =>
  totals.spamExamples >= minExamples && totals.hamExamples >= minExamples;

/**
 * The sites' classifier models in memory. Each screening reads the site's totals row with the
 * author's standing (comments/standing.ts), and the counts again when its version moved: a decision
 * made on any instance holds the next comment on every other.
 */
export class ModelCache {
  readonly #entries = new Map<string, Entry>();

  /**
   * The site's model if it is active, as the database has it now; null otherwise. `totals` are the
   * site's as the caller's transaction has just read them.
   */
  async active(db: Kysely<Database>, siteId: string, minExamples: number, totals: Totals): Promise<Model | null> {
    let entry = this.#entries.get(siteId);
    if (entry === undefined || entry.totals.version !== totals.version) entry = { totals, model: null };
    if (isActive(entry.totals, minExamples) && entry.model === null) entry.model = Model.of(entry.totals, await readCounts(db, siteId));
    this.#entries.delete(siteId);
    this.#entries.set(siteId, entry);
    if (this.#entries.size > MODELS_KEPT) this.#entries.delete(this.#entries.keys().next().value!);
    return isActive(entry.totals, minExamples) ? entry.model : null;
  }

  forgetSite(siteId: string): void {
    this.#entries.delete(siteId);
  }
}
