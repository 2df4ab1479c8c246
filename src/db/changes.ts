import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';

/** A committed change that cached reads depend on: one thread of a site, or (threadKey null) all of them. */
export interface Change {
  siteId: string;
  threadKey: string | null;
}

type Listener = (change: Change) => void;

/** The announcements' channel, under the deployment's Redis key prefix: deployments sharing a Redis stay apart. */
export function changesChannel(redisKeyPrefix: string): string {
  return `${redisKeyPrefix}:changes`;
}

/**
 * `queueOnly`: the change touched the moderation queue alone (a flag), so no cached read depends on it.
 * `users`: readers of the site who have new notifications; only the notification listeners hear it.
 */
type Announcement = Change & { from: string; queueOnly: boolean; users?: string[] };

/** What a message on the channel holds, or why it is to be ignored: anyone who can publish on that Redis can send anything. */
function announcementIn(message: string): Announcement | 'not_json' | 'wrong_shape' {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return 'not_json';
  }
  if (typeof parsed !== 'object' || parsed === null) return 'wrong_shape';
  const { from, siteId, threadKey, queueOnly = false, users } = parsed as Record<string, unknown>;
  if (typeof from !== 'string' || typeof siteId !== 'string' || (threadKey !== null && typeof threadKey !== 'string') || typeof queueOnly !== 'boolean') {
    return 'wrong_shape';
  }
  if (users !== undefined) return Array.isArray(users) && users.every((user) => typeof user === 'string') ? { from, siteId, threadKey, queueOnly, users } : 'wrong_shape';
  return { from, siteId, threadKey, queueOnly };
}

/**
 * Write paths announce here, after their transaction commits, which threads they changed; caches
 * listen. With Redis configured the announcements also reach every other instance (pub/sub).
 */
export class ChangeFeed {
  readonly #listeners = new Set<Listener>();
  readonly #queueListeners = new Set<(siteId: string) => void>();
  readonly #resetListeners = new Set<() => void>();
  readonly #deliveryListeners = new Set<() => void>();
  readonly #mailListeners = new Set<() => void>();
  readonly #notificationJobListeners = new Set<() => void>();
  readonly #notificationListeners = new Set<(siteId: string, userIds: string[]) => void>();
  readonly #instance = randomUUID();
  #publisher: Redis | null = null;
  #subscriber: Redis | null = null;
  #channel = '';
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

  /** Hears the site of every change, those to the moderation queue alone included (the staff streams). */
  listenQueue(listener: (siteId: string) => void): void {
    this.#queueListeners.add(listener);
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

  /** As deliveriesQueued, for mails (see mail/outbox.ts): this process's mail worker sends them at once. */
  mailsQueued(): void {
    for (const listener of this.#mailListeners) listener();
  }

  onMailsQueued(listener: () => void): void {
    this.#mailListeners.add(listener);
  }

  /** As deliveriesQueued, for notification fan-outs (see notifications/jobs.ts): this process's worker does them at once. */
  notificationJobsQueued(): void {
    for (const listener of this.#notificationJobListeners) listener();
  }

  onNotificationJobsQueued(listener: () => void): void {
    this.#notificationJobListeners.add(listener);
  }

  threadChanged(siteId: string, threadKey: string): void {
    this.#announce({ siteId, threadKey });
  }

  /** A change that can touch any thread of the site (a shadow ban hides an author everywhere). */
  siteChanged(siteId: string): void {
    this.#announce({ siteId, threadKey: null });
  }

  /** A change only the moderation queue shows (a comment flagged, its flags dismissed). */
  queueChanged(siteId: string): void {
    this.#announce({ siteId, threadKey: null }, true);
  }

  /** Readers of a site were given notifications (committed): their bells, on any instance, update. */
  readersNotified(siteId: string, userIds: string[]): void {
    if (userIds.length === 0) return;
    this.#hearNotified(siteId, userIds);
    const message: Announcement = { from: this.#instance, siteId, threadKey: null, queueOnly: false, users: userIds };
    this.#publisher?.publish(this.#channel, JSON.stringify(message)).catch(() => {
      // As for every announcement: the hub's periodic check finds what a lost one would have said.
    });
  }

  listenNotifications(listener: (siteId: string, userIds: string[]) => void): void {
    this.#notificationListeners.add(listener);
  }

  #hearNotified(siteId: string, userIds: string[]): void {
    for (const listener of this.#notificationListeners) listener(siteId, userIds);
  }

  #announce(change: Change, queueOnly = false): void {
    this.#deliver(change, queueOnly);
    const message: Announcement = { from: this.#instance, ...change, queueOnly };
    this.#publisher?.publish(this.#channel, JSON.stringify(message)).catch(() => {
      // Redis down: other instances miss this change until it is back; this one is already right.
    });
  }

  #deliver(change: Change, queueOnly: boolean): void {
    if (!queueOnly) for (const listener of this.#listeners) listener(change);
    for (const listener of this.#queueListeners) listener(change.siteId);
  }

  /**
   * Shares announcements with the other instances on this Redis under the same key prefix. Never
   * fails: while Redis is away the feed says it does not hear every change, and when the
   * subscription is back it resets. A message that is not an announcement is ignored, and logged
   * the first time one of its kind comes.
   */
  connectRedis(url: string, redisKeyPrefix: string, log: FastifyBaseLogger): void {
    this.#channel = changesChannel(redisKeyPrefix);
    this.#publisher = new Redis(url, { maxRetriesPerRequest: 1 });
    this.#subscriber = new Redis(url, { maxRetriesPerRequest: null });
    for (const client of [this.#publisher, this.#subscriber]) client.on('error', () => undefined);
    const logged = new Set<string>();
    this.#subscriber.on('message', (channel: string, message: string) => {
      const announcement = announcementIn(message);
      if (typeof announcement === 'object') {
        if (announcement.from === this.#instance) return;
        if (announcement.users !== undefined) this.#hearNotified(announcement.siteId, announcement.users);
        else this.#deliver({ siteId: announcement.siteId, threadKey: announcement.threadKey }, announcement.queueOnly);
        return;
      }
      if (logged.has(announcement)) return;
      logged.add(announcement);
      log.warn(
        { channel, problem: announcement, received: message.slice(0, 200) },
        'ignored a message on the change channel that is not a change announcement (logged once per kind of problem)',
      );
    });
    this.#subscriber.on('close', () => {
      this.#hearsEveryChange = false;
    });
    this.#subscriber.on('ready', () => {
      this.#subscriber!.subscribe(this.#channel).then(
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
