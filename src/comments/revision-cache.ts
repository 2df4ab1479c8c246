/**
 * Values kept by key for as long as the database reports the revision they were read at, least
 * recently used dropped past `maxBytes` (as `sizeOf` counts them). The revisions are counters that
 * triggers move with every write that changes what a value was made of (migration 0007), and each
 * read asks the database for the current one, so a kept value is exact on every instance whoever
 * wrote: nothing has to be invalidated, and without Redis nothing is missed.
 */
export class RevisionCache<Value> {
  readonly #entries = new Map<string, { revision: number; value: Value; size: number }>();
  #bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly sizeOf: (value: Value) => number,
  ) {}

  get(key: string, revision: number): Value | undefined {
    const entry = this.#entries.get(key);
    if (entry?.revision !== revision) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` (again, when it was changed in place: its size is counted anew). */
  set(key: string, revision: number, value: Value): void {
    const size = this.sizeOf(value);
    this.#remove(key);
    if (size > this.maxBytes) return;
    this.#entries.set(key, { revision, value, size });
    this.#bytes += size;
    while (this.#bytes > this.maxBytes) this.#remove(this.#entries.keys().next().value!);
  }

  #remove(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.size;
  }
}
