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
  readonly #instance = randomUUID();
  #publisher: Redis | null = null;
  #subscriber: Redis | null = null;

  listen(listener: Listener): void {
    this.#listeners.add(listener);
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

  /** Shares announcements with the other instances on this Redis. */
  async connectRedis(url: string): Promise<void> {
    this.#publisher = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    this.#subscriber = new Redis(url, { lazyConnect: true });
    await Promise.all([this.#publisher.connect(), this.#subscriber.connect()]);
    this.#subscriber.on('message', (_channel, message: string) => {
      const { from, siteId, threadKey } = JSON.parse(message) as Change & { from: string };
      if (from !== this.#instance) this.#deliver({ siteId, threadKey });
    });
    await this.#subscriber.subscribe(CHANNEL);
  }

  async close(): Promise<void> {
    this.#publisher?.disconnect();
    this.#subscriber?.disconnect();
  }
}
