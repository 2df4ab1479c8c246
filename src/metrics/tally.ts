/**
 * Counts by label kept as plain numbers by the code that sees the events (the rate limiter, the
 * webhook worker, the database): incrementing one costs a map lookup, whether or not metrics are on,
 * and `/metrics` reads them when scraped.
 */
export class Tally {
  readonly #counts = new Map<string, number>();

  add(label: string, by = 1): void {
    this.#counts.set(label, (this.#counts.get(label) ?? 0) + by);
  }

  entries(): IterableIterator<[string, number]> {
    return this.#counts.entries();
  }
}
