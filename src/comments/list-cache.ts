import type { Change, ChangeFeed } from '../db/changes.ts';
import { etagOf } from '../http/etag.ts';

/** A finished public list response: its bytes and their entity tag. */
export interface CachedList {
  body: Buffer;
  etag: string;
}

interface Entry extends CachedList {
  tag: string;
}

/** Thread-level invalidations remembered for reads still in flight; past this they are forgotten wholesale. */
const REMEMBERED_CHANGES = 10_000;

function threadTag(siteId: string, threadKey: string): string {
  return `${siteId}\n${threadKey}`;
}

/**
 * Public (anonymous) list responses by their exact URL, least recently used dropped past `maxBytes`.
 *
 * Exact invalidation: every committed write announces its thread on the change feed (or its whole
 * site), and all cached pages of that thread go. A read that started before such a change may have
 * read the old rows, so a read records the clock when it starts (`startRead`) and its result is kept
 * only if no change to its thread came after that.
 */
export class ListCache {
  readonly #entries = new Map<string, Entry>();
  readonly #keysByTag = new Map<string, Set<string>>();
  readonly #changedAt = new Map<string, number>();
  #bytes = 0;
  #clock = 0;
  /** Reads that started before this tick are never kept (changes older than it were forgotten). */
  #forgottenBefore = 0;

  constructor(
    private readonly changes: ChangeFeed,
    private readonly maxBytes: number,
  ) {
    changes.listen((change) => this.#invalidate(change));
    changes.onReset(() => this.#clear());
  }

  get(url: string): CachedList | undefined {
    // An instance that may miss other instances' writes (PostgreSQL without Redis, or Redis away)
    // serves every read from the database.
    if (!this.changes.hearsEveryChange) return undefined;
    const entry = this.#entries.get(url);
    if (!entry) return undefined;
    this.#entries.delete(url);
    this.#entries.set(url, entry);
    return entry;
  }

  startRead(): number {
    return this.#clock;
  }

  set(url: string, siteId: string, threadKey: string, readStartedAt: number, body: Buffer): CachedList {
    const tag = threadTag(siteId, threadKey);
    const entry: Entry = { body, etag: etagOf(body), tag };
    const changedAt = Math.max(this.#changedAt.get(tag) ?? -1, this.#changedAt.get(siteId) ?? -1);
    const stale = readStartedAt < this.#forgottenBefore || changedAt > readStartedAt;
    if (stale || !this.changes.hearsEveryChange || body.length > this.maxBytes) return entry;
    this.#remove(url);
    this.#entries.set(url, entry);
    this.#bytes += body.length;
    let keys = this.#keysByTag.get(tag);
    if (!keys) this.#keysByTag.set(tag, (keys = new Set()));
    keys.add(url);
    while (this.#bytes > this.maxBytes) this.#remove(this.#entries.keys().next().value!);
    return entry;
  }

  #remove(url: string): void {
    const entry = this.#entries.get(url);
    if (!entry) return;
    this.#entries.delete(url);
    this.#bytes -= entry.body.length;
    const keys = this.#keysByTag.get(entry.tag)!;
    keys.delete(url);
    if (keys.size === 0) this.#keysByTag.delete(entry.tag);
  }

  #clear(): void {
    this.#entries.clear();
    this.#keysByTag.clear();
    this.#bytes = 0;
    this.#clock += 1;
    this.#forgottenBefore = this.#clock;
  }

  #invalidate(change: Change): void {
    this.#clock += 1;
    if (this.#changedAt.size >= REMEMBERED_CHANGES) {
      this.#changedAt.clear();
      this.#forgottenBefore = this.#clock;
    }
    if (change.threadKey !== null) {
      const tag = threadTag(change.siteId, change.threadKey);
      this.#changedAt.set(tag, this.#clock);
      for (const url of this.#keysByTag.get(tag) ?? []) this.#remove(url);
      return;
    }
    this.#changedAt.set(change.siteId, this.#clock);
    const prefix = `${change.siteId}\n`;
    for (const [tag, keys] of this.#keysByTag) {
      if (tag.startsWith(prefix)) for (const url of keys) this.#remove(url);
    }
  }
}
