import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Db } from '../db/connect.ts';
import { AppError } from '../errors.ts';
import { Bells } from './bells.ts';
import { COUNTS_GRACE_MS, Feed } from './feed.ts';
import type { QueueAccess } from './queue-access.ts';
import { QueueFeed } from './queue-feed.ts';
import { clientKey } from '../ratelimits/client-key.ts';
import { HEARTBEAT, Reader } from './reader.ts';
import { threadSeqs, threadsWithCountsSince } from './repository.ts';
import type { BellSession } from './stream-key.ts';

const CHECK_BATCH = 500;

/**
 * Every live stream of this instance, grouped by thread. Write paths announce changed threads on
 * db.changes after commit (from this process, or from other instances through Redis); the hub has
 * the announced thread's feed read its new events. Every heartbeat it also compares each thread's
 * sequence in the database with what it sent, so an announcement lost on the way is repaired
 * within one heartbeat. Staff streams of the moderation queue share the limits, the heartbeat and
 * the check, through one QueueFeed. A thread stream may also carry a reader's notification bell
 * (Bells), checked at the same heartbeat.
 */
export class LiveHub {
  readonly #feeds = new Map<string, Feed>();
  /** Open streams per client, keyed as every other limit keys a client (an IPv6 one by its /64). */
  readonly #perClient = new Map<string, number>();
  readonly #queue: QueueFeed;
  readonly #bells: Bells;
  /** Each open queue stream's question whether its holder still moderates its sites. */
  readonly #queueAccess = new Map<Reader, QueueAccess>();
  #checkingAccess = false;
  #open = 0;
  #timer: ReturnType<typeof setInterval> | null = null;
  #closing = false;

  constructor(
    private readonly db: Db,
    private readonly limits: Config['live'],
    private readonly log: FastifyBaseLogger,
  ) {
    db.changes.listen(({ siteId, threadKey }) => {
      if (threadKey !== null) this.#feeds.get(feedKey(siteId, threadKey))?.pull();
      else for (const feed of this.#feeds.values()) if (feed.siteId === siteId) void feed.pull();
    });
    this.#queue = new QueueFeed(db, log);
    db.changes.listenQueue((siteId) => {
      if (this.#queue.watches(siteId)) void this.#queue.pull();
    });
    this.#bells = new Bells(db, log);
    db.changes.onReset(() => {
      this.#feeds.forEach((feed) => void feed.pull());
      void this.#queue.pull();
      void this.#bells.check();
    });
    this.#timer = setInterval(() => void this.#beat(), limits.heartbeatMs);
    this.#timer.unref();
  }

  get openStreams(): number {
    return this.#open;
  }

  /** Refuses a stream past the per-client or per-instance cap (429), before anything is sent. */
  admit(client: string): void {
    if (this.#closing) throw new AppError('service_unavailable', 'The server is shutting down; reconnect in a moment');
    if (this.#open >= this.limits.maxStreams) {
      throw new AppError('rate_limited', `This server has ${this.limits.maxStreams} live streams open, its limit; try again later`);
    }
    if ((this.#perClient.get(client) ?? 0) >= this.limits.maxStreamsPerIp) {
      throw new AppError('rate_limited', `At most ${this.limits.maxStreamsPerIp} live streams per client address; close one first`);
    }
  }

  /** A stream admitted and counted against the limits until it closes. */
  #admitted(ip: string): Reader {
    const client = clientKey(ip);
    this.admit(client);
    const reader = new Reader(ip, 1000 + Math.floor(Math.random() * 4000));
    this.#open += 1;
    this.#perClient.set(client, (this.#perClient.get(client) ?? 0) + 1);
    reader.onClose(() => {
      this.#open -= 1;
      const left = (this.#perClient.get(client) ?? 1) - 1;
      if (left > 0) this.#perClient.set(client, left);
      else this.#perClient.delete(client);
    });
    return reader;
  }

  /**
   * Opens a stream of a thread for a reader, carrying their session's bell when one is given; the
   * returned reader's `out` is the response body.
   */
  async open(ip: string, siteId: string, urlKey: string, lastEventId: number | null, bell: BellSession | null = null): Promise<Reader> {
    const reader = this.#admitted(ip);
    const key = feedKey(siteId, urlKey);
    let feed = this.#feeds.get(key);
    if (!feed) {
      feed = new Feed(this.db, siteId, urlKey, this.log);
      this.#feeds.set(key, feed);
    }
    const thread = feed;
    reader.onClose(() => {
      thread.readers.delete(reader);
      if (thread.readers.size === 0 && this.#feeds.get(key) === thread) {
        thread.close();
        this.#feeds.delete(key);
      }
    });
    try {
      await thread.attach(reader, lastEventId);
      if (bell) await this.#bells.attach(reader, bell);
    } catch (error) {
      reader.close();
      throw error;
    }
    return reader;
  }

  /** Opens a staff stream of the moderation queue of these sites (the caller moderates them all). */
  async openQueue(ip: string, siteIds: string[], lastEventId: string | null, access: QueueAccess): Promise<Reader> {
    const reader = this.#admitted(ip);
    this.#queueAccess.set(reader, access);
    reader.onClose(() => this.#queueAccess.delete(reader));
    try {
      await this.#queue.attach(reader, siteIds, lastEventId);
    } catch (error) {
      reader.close();
      throw error;
    }
    return reader;
  }

  /** Heartbeat, streams past their age closed (their EventSource resumes), and the check for missed announcements. */
  async #beat(): Promise<void> {
    const oldest = Date.now() - this.limits.maxStreamAgeMs;
    for (const readers of [...[...this.#feeds.values()].map((feed) => feed.readers), this.#queue.readers]) {
      for (const reader of readers) {
        if (reader.openedAt < oldest) reader.close();
        else reader.write(HEARTBEAT);
      }
    }
    void this.#queue.pull();
    void this.#checkQueueAccess();
    void this.#bells.check();
    const located = [...this.#feeds.values()].filter((feed) => feed.threadId !== null);
    try {
      for (let i = 0; i < located.length; i += CHECK_BATCH) {
        const batch = located.slice(i, i + CHECK_BATCH);
        const ids = batch.map((feed) => feed.threadId!);
        const seqs = await threadSeqs(this.db.kysely, ids);
        const since = new Date(Math.min(...batch.map((feed) => feed.countsReadAt)) - COUNTS_GRACE_MS).toISOString();
        const voted = await threadsWithCountsSince(this.db.kysely, ids, since);
        for (const feed of batch) if ((seqs.get(feed.threadId!) ?? 0) > feed.cursor || voted.has(feed.threadId!)) void feed.pull();
      }
      for (const feed of this.#feeds.values()) if (feed.threadId === null) void feed.pull();
    } catch (error) {
      this.log.warn({ err: error }, 'live: checking threads for missed events failed');
    }
  }

  /**
   * Ends the queue streams whose holders lost access since they opened, so one stops within a
   * heartbeat of the change, on every instance. A holder whose access cannot be read is taken to
   * have none: the stream ends, and its reconnection is checked afresh.
   */
  async #checkQueueAccess(): Promise<void> {
    if (this.#checkingAccess) return;
    this.#checkingAccess = true;
    try {
      for (const [reader, access] of this.#queueAccess) {
        const allowed = await access().catch((error: unknown) => {
          this.log.warn({ err: error }, 'live: checking a queue stream\'s access failed; the stream ends');
          return false;
        });
        if (!allowed) reader.close();
      }
    } finally {
      this.#checkingAccess = false;
    }
  }

  /** Shutdown: ends every stream (their EventSource reconnects, to another instance or to this one once it is back). */
  close(): void {
    this.#closing = true;
    if (this.#timer) clearInterval(this.#timer);
    for (const feed of this.#feeds.values()) {
      for (const reader of feed.readers) reader.close();
      feed.close();
    }
    this.#feeds.clear();
    for (const reader of this.#queue.readers) reader.close();
  }
}

function feedKey(siteId: string, urlKey: string): string {
  return `${siteId} ${urlKey}`;
}
