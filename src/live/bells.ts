import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/connect.ts';
import { unreadCounts } from '../notifications/unread.ts';
import { frame, type Reader } from './reader.ts';
import { liveSessions, type BellSession } from './stream-key.ts';

const CHECK_BATCH = 500;

/** A reader's bell streams on this instance, and what it was last told. */
interface Listening {
  siteId: string;
  streams: Map<Reader, { sessionId: string; sent: number | null }>;
  /** The number of the latest read of the count that was applied: an older read finishing later is stale. */
  appliedRead: number;
}

/**
 * The notification bells carried by thread streams (`notifications_key`), by reader. An
 * announcement (db.changes.readersNotified, from any instance) has the counts of the readers it
 * names read in one statement, and each stream whose count changed is sent it. Every heartbeat the
 * counts of all bells are read again, in batches, so a lost announcement is repaired within one
 * heartbeat, and a bell whose session has ended (signed out, revoked, expired) is closed, as the
 * queue streams are.
 */
export class Bells {
  readonly #byUser = new Map<string, Listening>();
  #reads = 0;
  #checking = false;

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
  ) {
    db.changes.listenNotifications((siteId, userIds) => {
      // Only the site's own readers: a message on a shared Redis names what it likes.
      const heard = userIds.filter((userId) => this.#byUser.get(userId)?.siteId === siteId).map((userId) => ({ siteId, userId }));
      this.#refresh(heard).catch((error: unknown) => this.log.warn({ err: error }, 'live: reading unread counts failed; the next heartbeat retries'));
    });
  }

  /** Carries the session's bell on this (caught up) stream, which is sent the unread count now and whenever it changes. */
  async attach(reader: Reader, bell: BellSession): Promise<void> {
    let listening = this.#byUser.get(bell.userId);
    if (!listening) {
      listening = { siteId: bell.siteId, streams: new Map(), appliedRead: 0 };
      this.#byUser.set(bell.userId, listening);
    }
    listening.streams.set(reader, { sessionId: bell.sessionId, sent: null });
    const user = listening;
    reader.onClose(() => {
      user.streams.delete(reader);
      if (user.streams.size === 0 && this.#byUser.get(bell.userId) === user) this.#byUser.delete(bell.userId);
    });
    await this.#refresh([bell]);
  }

  /** Reads these readers' counts and sends each of their streams a count that differs from what it was sent. */
  async #refresh(readers: { siteId: string; userId: string }[]): Promise<void> {
    if (readers.length === 0) return;
    const read = ++this.#reads;
    const counts = await unreadCounts(this.db.kysely, readers);
    for (const { userId } of readers) {
      const listening = this.#byUser.get(userId);
      if (!listening || listening.appliedRead > read) continue;
      listening.appliedRead = read;
      const unread = counts.get(userId) ?? 0;
      for (const [reader, stream] of listening.streams) {
        if (stream.sent === unread) continue;
        stream.sent = unread;
        reader.offer(frame({ type: 'notifications', unread }));
      }
    }
  }

  /** The heartbeat's check: bells of ended sessions close, and every count is read again. */
  async check(): Promise<void> {
    if (this.#checking) return;
    this.#checking = true;
    try {
      const users = [...this.#byUser].map(([userId, listening]) => ({ userId, ...listening }));
      for (let i = 0; i < users.length; i += CHECK_BATCH) {
        const batch = users.slice(i, i + CHECK_BATCH);
        const sessions = batch.flatMap(({ siteId, streams }) => [...streams.values()].map(({ sessionId }) => ({ sessionId, siteId })));
        const live = await liveSessions(this.db.kysely, sessions);
        for (const { streams } of batch) for (const [reader, { sessionId }] of streams) if (!live.has(sessionId)) reader.close();
        await this.#refresh(batch.filter(({ streams }) => streams.size > 0));
      }
    } catch (error) {
      this.log.warn({ err: error }, 'live: checking the bells failed; the next heartbeat retries');
    } finally {
      this.#checking = false;
    }
  }
}
