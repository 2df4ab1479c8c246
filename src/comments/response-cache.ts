import type { Change, ChangeFeed } from '../db/changes.ts';
import { etagOf } from '../http/etag.ts';

/** A finished response: its bytes and their entity tag. */
export interface TaggedResponse {
  body: Buffer;
  etag: string;
}

export function taggedResponse(body: Buffer): TaggedResponse {
  return { body, etag: etagOf(body) };
}

/** A cached public response, and what is kept beside its bytes. */
export interface CachedResponse<Page> extends TaggedResponse {
  page: Page;
}

/** A response just read, and the thread whose writes change it. */
export interface BuiltResponse<Page> {
  siteId: string;
  threadKey: string;
  response: TaggedResponse;
  page: Page;
}

interface Entry<Page> extends CachedResponse<Page> {
  tag: string;
  /** What the entry holds in memory: its bytes, and the objects of its page. */
  size: number;
}

/** Thread-level invalidations remembered for reads still in flight; past this they are forgotten wholesale. */
const REMEMBERED_CHANGES = 10_000;

function threadTag(siteId: string, threadKey: string): string {
  return `${siteId}\n${threadKey}`;
}

/**
 * Public (anonymous) responses by key (their URL), each with what it was made
 * of (`Page`), least recently used dropped past `maxBytes` of memory held; an entry counts
 * `sizePerBodyByte` bytes for each byte of its body.
 *
 * Exact invalidation: every committed write announces its thread on the change feed (or its whole
 * site), and all cached pages of that thread go. A read that started before such a change may have
 * read the old rows, so a read records the clock when it starts (`startRead`) and its result is kept
 * only if no change to its thread came after that. What is kept, and how it is read, is its owner's
 * (public-list.ts, public-comment.ts).
 */
export class ResponseCache<Page> {
  readonly #entries = new Map<string, Entry<Page>>();
  readonly #keysByTag = new Map<string, Set<string>>();
  readonly #changedAt = new Map<string, number>();
  #bytes = 0;
  #clock = 0;
  /** Reads that started before this tick are never kept (changes older than it were forgotten). */
  #forgottenBefore = 0;

  constructor(
    private readonly changes: ChangeFeed,
    private readonly maxBytes: number,
    private readonly sizePerBodyByte: number,
  ) {
    changes.listen((change) => this.#invalidate(change));
    changes.onReset(() => this.#clear());
  }

  /** Answers served from the cache and answers built (the cache-hit ratio on /metrics). */
  hits = 0;
  misses = 0;

  get(key: string): CachedResponse<Page> | undefined {
    const entry = this.#lookup(key);
    if (entry) this.hits += 1;
    return entry;
  }

  #lookup(key: string): CachedResponse<Page> | undefined {
    // An instance that may miss other instances' writes (PostgreSQL without Redis, or Redis away)
    // serves every read from the database.
    if (!this.changes.hearsEveryChange) return undefined;
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry;
  }

  /** The response for `key`: kept, or read by `build` now and kept unless a change to its thread came while it was read. */
  async read(key: string, build: () => Promise<BuiltResponse<Page>>): Promise<CachedResponse<Page>> {
    const hit = this.get(key);
    if (hit) return hit;
    this.misses += 1;
    const readStartedAt = this.startRead();
    return this.keep(key, readStartedAt, await build());
  }

  /** The clock before a read of what `keep` is then given: one read may build many entries (counts.ts). */
  startRead(): number {
    return this.#clock;
  }

  /** Keeps what a read started at `readStartedAt` built, unless a change to its thread came since. */
  keep(key: string, readStartedAt: number, { siteId, threadKey, response, page }: BuiltResponse<Page>): CachedResponse<Page> {
    const tag = threadTag(siteId, threadKey);
    const entry: Entry<Page> = { ...response, page, tag, size: response.body.length * this.sizePerBodyByte };
    const changedAt = Math.max(this.#changedAt.get(tag) ?? -1, this.#changedAt.get(siteId) ?? -1);
    const stale = readStartedAt < this.#forgottenBefore || changedAt > readStartedAt;
    if (stale || !this.changes.hearsEveryChange || entry.size > this.maxBytes) return entry;
    this.#remove(key);
    this.#entries.set(key, entry);
    this.#bytes += entry.size;
    let keys = this.#keysByTag.get(tag);
    if (!keys) this.#keysByTag.set(tag, (keys = new Set()));
    keys.add(key);
    while (this.#bytes > this.maxBytes) this.#remove(this.#entries.keys().next().value!);
    return entry;
  }

  #remove(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.size;
    const keys = this.#keysByTag.get(entry.tag)!;
    keys.delete(key);
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
      for (const key of this.#keysByTag.get(tag) ?? []) this.#remove(key);
      return;
    }
    this.#changedAt.set(change.siteId, this.#clock);
    const prefix = `${change.siteId}\n`;
    for (const [tag, keys] of this.#keysByTag) {
      if (tag.startsWith(prefix)) for (const key of keys) this.#remove(key);
    }
  }
}
