import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

/** A committed change that cached reads depend on: one thread of a site, or (threadKey null) all of them. */
export interface Change {
  siteId: string;
  threadKey: string | null;
}

type Listener = (change: Change) => void;

const CHANNEL = 'parley:changes';

/**
 * Write paths announce here, after their transaction commits, which threads they changed; caches
 * listen. With Redis configured the announcements also reach every other instance (pub/sub).
 */
export class ChangeFeed {
  readonly #listeners = new Set<Listener>();
  readonly #resetListeners = new Set<() => void>();
  readonly #deliveryListeners = new Set<() => void>();
  readonly #instance = randomUUID();
  #publisher: Redis | null = null;
  #subscriber: Redis | null = null;
  #hearsEveryChange: boolean;

  /**
   * `soleWriter`: no other process writes this database (SQLite), so this feed alone hears every
   * change. Otherwise (PostgreSQL) it does only while subscribed to Redis.
   */
  constructor(soleWriter: boolean) {
    this.#hearsEveryChange = soleWriter;
  }

  /** Whether every committed change reaches this feed now; caches must not serve while it is false. */
  get hearsEveryChange(): boolean {
    return this.#hearsEveryChange;
  }

  listen(listener: Listener): void {
    this.#listeners.add(listener);
  }

  /** Called when changes may have been missed (Redis came back after an outage): forget everything. */
  onReset(listener: () => void): void {
    this.#resetListeners.add(listener);
  }

  /**
   * A transaction of this process queued webhook deliveries and has committed (see withEvents), so
   * the delivery worker need not wait for its next poll. Not shared: other instances poll.
   */
  deliveriesQueued(): void {
    for (const listener of this.#deliveryListeners) listener();
  }

  onDeliveriesQueued(listener: () => void): void {
    this.#deliveryListeners.add(listener);
  }

  threadChanged(siteId: string, threadKey: string): void {
    this.#announce({ siteId, threadKey });
  }

  /** A change that can touch any thread of the site (a shadow ban hides an author everywhere). */
  siteChanged(siteId: string): void {
    this.#announce({ siteId, threadKey: null });
  }

  #announce(change: Change): void {
    this.#deliver(change);
    this.#publisher?.publish(CHANNEL, JSON.stringify({ from: this.#instance, ...change })).catch(() => {
      // Redis down: other instances miss this change until it is back; this one is already right.
    });
  }

  #deliver(change: Change): void {
    for (const listener of this.#listeners) listener(change);
  }

  /**
   * Shares announcements with the other instances on this Redis. Never fails: while Redis is away
   * the feed says it does not hear every change, and when the subscription is back it resets.
   */
  connectRedis(url: string): void {
    this.#publisher = new Redis(url, { maxRetriesPerRequest: 1 });
    this.#subscriber = new Redis(url, { maxRetriesPerRequest: null });
    for (const client of [this.#publisher, this.#subscriber]) client.on('error', () => undefined);
    this.#subscriber.on('message', (_channel, message: string) => {
      const { from, siteId, threadKey } = JSON.parse(message) as Change & { from: string };
      if (from !== this.#instance) this.#deliver({ siteId, threadKey });
    });
    this.#subscriber.on('close', () => {
      this.#hearsEveryChange = false;
    });
    this.#subscriber.on('ready', () => {
      this.#subscriber!.subscribe(CHANNEL).then(
        () => {
          for (const listener of this.#resetListeners) listener();
          this.#hearsEveryChange = true;
        },
        () => undefined,
      );
    });
  }

  async close(): Promise<void> {
    this.#publisher?.disconnect();
    this.#subscriber?.disconnect();
  }
}
