import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { Model, type Totals } from './model.ts';
import { readCounts, readTotals } from './store.ts';

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
 * The sites' classifier models in memory. Where this process is the database's only writer
 * (SQLite), a model is read again only after this process changed it (`changed`, called once a
 * decision has committed): screening a comment then runs no statement. Where several instances
 * write (PostgreSQL), each screening reads the site's totals row (with the author's standing), and the
 * counts again when its version moved: a decision made on one instance holds the next comment on
 * any other.
 */
export class ModelCache {
  readonly #entries = new Map<string, Entry>();
  readonly #toVerify = new Set<string>();
  readonly #soleWriter: boolean;

  constructor(soleWriter: boolean) {
    this.#soleWriter = soleWriter;
  }

  /**
   * The site's model if it is active, as the database has it now; null otherwise. `read` are its
   * totals if the caller's transaction has just read them (a new comment's: see comments/standing.ts).
   */
  async active(db: Kysely<Database>, siteId: string, minExamples: number, read?: Totals): Promise<Model | null> {
    let entry = this.#entries.get(siteId);
    if (entry === undefined || !this.#soleWriter || this.#toVerify.has(siteId)) {
      this.#toVerify.delete(siteId);
      const totals = read ?? (await readTotals(db, siteId));
      if (entry === undefined || entry.totals.version !== totals.version) entry = { totals, model: null };
    }
    if (isActive(entry.totals, minExamples) && entry.model === null) entry.model = Model.of(entry.totals, await readCounts(db, siteId));
    this.#entries.delete(siteId);
    this.#entries.set(siteId, entry);
    if (this.#entries.size > MODELS_KEPT) this.#entries.delete(this.#entries.keys().next().value!);
    return isActive(entry.totals, minExamples) ? entry.model : null;
  }

  /** A decision of this process on the site has committed: its next screening checks the model's version. */
  changed(siteId: string): void {
    this.#toVerify.add(siteId);
  }

  forgetSite(siteId: string): void {
    this.#entries.delete(siteId);
    this.#toVerify.delete(siteId);
  }
}
