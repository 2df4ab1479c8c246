/** What one screened comment leaves for the checks of the comments after it. */
export interface Signal {
  commentId: string;
  siteId: string;
  threadKey: string;
  authorKey: string;
  /** A guest's /24 (IPv4) or /64 (IPv6); null for signed-in authors and keys. */
  ipRange: string | null;
  textHash: string;
  /** When the comment was written, in ms since the epoch. */
  at: number;
}

/**
 * Signals in the order they were added, oldest first. Not an array shifted from its front: a busy
 * thread's list holds thousands, and V8 moves them all on every shift. Made with its first signal:
 * an array made empty and pushed to reserves room for 17, and most texts are written once.
 */
class SignalQueue {
  #items: Signal[];
  #head = 0;

  constructor(first: Signal) {
    this.#items = [first];
  }

  get size(): number {
    return this.#items.length - this.#head;
  }

  push(signal: Signal): void {
    this.#items.push(signal);
  }

  oldest(): Signal | undefined {
    return this.#items[this.#head];
  }

  /** Takes a signal out: the oldest, or one of the newest (a comment whose write failed). */
  remove(signal: Signal): void {
    if (this.#items[this.#head] === signal) {
      this.#items[this.#head++] = undefined as unknown as Signal;
      if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
        this.#items = this.#items.slice(this.#head);
        this.#head = 0;
      }
      return;
    }
    const index = this.#items.lastIndexOf(signal);
    if (index >= this.#head) this.#items.splice(index, 1);
  }

  /** Keeps only the signals `keep` accepts. */
  filter(keep: (signal: Signal) => boolean): void {
    this.#items = this.#items.slice(this.#head).filter(keep);
    this.#head = 0;
  }

  /** The k-th newest (1: the newest). */
  newest(k: number): Signal | undefined {
    return k <= this.size ? this.#items[this.#items.length - k] : undefined;
  }

  /** The k-th newest for k from 1, while `since` holds. */
  *since(at: number): Generator<Signal> {
    for (let i = this.#items.length - 1; i >= this.#head && this.#items[i].at >= at; i--) yield this.#items[i];
  }
}

/** A site's signals, and the same signals by text, by guest range and by thread. */
class SiteSignals {
  readonly byText = new Map<string, SignalQueue>();
  readonly byRange = new Map<string, SignalQueue>();
  readonly byThread = new Map<string, SignalQueue>();
  constructor(readonly all: SignalQueue) {}
}

function append(lists: Map<string, SignalQueue>, key: string | null, signal: Signal): void {
  if (key === null) return;
  const list = lists.get(key);
  if (list) list.push(signal);
  else lists.set(key, new SignalQueue(signal));
}

function takeOut(lists: Map<string, SignalQueue>, key: string | null, signal: Signal): void {
  if (key === null) return;
  const list = lists.get(key)!;
  list.remove(signal);
  if (list.size === 0) lists.delete(key);
}

/**
 * The signals of the last `keptMs`, at most `capacity` of them across sites, in memory: the
 * duplicate and velocity checks read them here, not from the database. Every signal joins its site's
 * lists in the order it is added, so the oldest signal is the first of each of its lists, and
 * letting it go takes constant time. Windows are counted from the newest: the k-th newest inside a
 * window means the window holds k.
 */
export class SignalLog {
  readonly #sites = new Map<string, SiteSignals>();
  #all: SignalQueue | null = null;

  constructor(
    readonly keptMs: number,
    readonly capacity: number,
  ) {}

  get size(): number {
    return this.#all?.size ?? 0;
  }

  /** Whether the log holds this comment's signal (found among the copies of its text). */
  has(signal: Signal): boolean {
    const copies = this.#sites.get(signal.siteId)?.byText.get(signal.textHash);
    if (copies) for (const copy of copies.since(0)) if (copy.commentId === signal.commentId) return true;
    return false;
  }

  /** Adds a signal (its thread and range then hold the log's copy of those strings, not the request's). */
  add(signal: Signal): void {
    const site = this.#sites.get(signal.siteId);
    if (site) {
      signal.threadKey = site.byThread.get(signal.threadKey)?.oldest()!.threadKey ?? signal.threadKey;
      if (signal.ipRange !== null) signal.ipRange = site.byRange.get(signal.ipRange)?.oldest()!.ipRange ?? signal.ipRange;
      site.all.push(signal);
    }
    const into = site ?? new SiteSignals(new SignalQueue(signal));
    if (!site) this.#sites.set(signal.siteId, into);
    append(into.byText, signal.textHash, signal);
    append(into.byRange, signal.ipRange, signal);
    append(into.byThread, signal.threadKey, signal);
    if (this.#all) this.#all.push(signal);
    else this.#all = new SignalQueue(signal);
    this.#expire(signal.at);
  }

  /** Takes back a signal whose comment was not written after all: one of the newest. */
  remove(signal: Signal): void {
    const site = this.#sites.get(signal.siteId);
    if (!site || !this.has(signal)) return;
    this.#all!.remove(signal);
    this.#takeOut(site, signal);
  }

  /** Lets go of every signal of a site (deleted with its comments). */
  forgetSite(siteId: string): void {
    if (!this.#sites.delete(siteId)) return;
    this.#all!.filter((signal) => signal.siteId !== siteId);
  }

  /** Whether the window of `windowMs` up to `now` holds `threshold` signals of the site, or of its range or thread. */
  full(siteId: string, by: { range: string } | { thread: string } | 'site', threshold: number, windowMs: number, now: number): boolean {
    const site = this.#sites.get(siteId);
    if (!site) return false;
    const kth = (by === 'site' ? site.all : 'range' in by ? site.byRange.get(by.range) : site.byThread.get(by.thread))?.newest(threshold);
    return kth !== undefined && kth.at >= now - windowMs;
  }

  /** The newest of the site's signals with this text. */
  lastWithText(siteId: string, textHash: string): Signal | undefined {
    return this.#sites.get(siteId)?.byText.get(textHash)?.newest(1);
  }

  /** The site's signals with this text since `since`, newest first. */
  *withText(siteId: string, textHash: string, since: number): Generator<Signal> {
    const copies = this.#sites.get(siteId)?.byText.get(textHash);
    if (copies) yield* copies.since(since);
  }

  /** Lets go of the signals older than the kept time, and the oldest past the capacity. */
  #expire(now: number): void {
    const all = this.#all!;
    for (let oldest = all.oldest(); oldest && (oldest.at < now - this.keptMs || all.size > this.capacity); oldest = all.oldest()) {
      all.remove(oldest);
      this.#takeOut(this.#sites.get(oldest.siteId)!, oldest);
    }
  }

  #takeOut(site: SiteSignals, signal: Signal): void {
    site.all.remove(signal);
    takeOut(site.byText, signal.textHash, signal);
    takeOut(site.byRange, signal.ipRange, signal);
    takeOut(site.byThread, signal.threadKey, signal);
    if (site.all.size === 0) this.#sites.delete(signal.siteId);
  }
}
