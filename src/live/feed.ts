import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/connect.ts';
import { KEPT_EVENTS } from './record.ts';
import { frame, type Frame, type Reader } from './reader.ts';
import { eventsAfter, publicCounts, threadPosition, type StoredEvent } from './repository.ts';

/** Counts of one comment are sent at most once per this, however many votes arrive. */
export const COUNTS_INTERVAL_MS = 1000;
const PAGE = 500;

/**
 * The readers of one thread on this instance, and how far they have been sent. The database's
 * sequence is the truth: an announcement (local, or from another instance through Redis) only says
 * "look again", and each look reads every event after the last one sent, so a lost announcement
 * delays events until the next look (the hub's periodic check) but never loses them.
 */
export class Feed {
  readonly readers = new Set<Reader>();
  threadId: string | null = null;
  /** The number of the last event broadcast to this thread's readers. */
  cursor = 0;
  readonly ready: Promise<void>;
  #pulling: Promise<void> | null = null;
  #again = false;
  #countsSentAt = new Map<string, number>();
  #dirtyCounts = new Set<string>();
  #countsTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly db: Db,
    readonly siteId: string,
    readonly urlKey: string,
    private readonly log: FastifyBaseLogger,
  ) {
    this.ready = this.#locate(true);
  }

  /**
   * Finds the thread. Readers who came before it existed (a page without comments) are owed all its
   * events, so only the first look starts at the thread's latest.
   */
  async #locate(first: boolean): Promise<void> {
    const position = await threadPosition(this.db.kysely, this.siteId, this.urlKey);
    if (!position) return;
    this.threadId = position.threadId;
    if (first) this.cursor = position.seq;
  }

  /** Reads and broadcasts what is new; calls while a read runs make it read once more after. */
  pull(): Promise<void> {
    if (this.#pulling) {
      this.#again = true;
      return this.#pulling;
    }
    this.#pulling = (async () => {
      try {
        do {
          this.#again = false;
          await this.#pullOnce();
        } while (this.#again);
      } catch (error) {
        this.log.warn({ err: error, site_id: this.siteId }, 'live: reading new events failed; the next check retries');
      } finally {
        this.#pulling = null;
      }
    })();
    return this.#pulling;
  }

  async #pullOnce(): Promise<void> {
    await this.ready.catch(() => undefined);
    // A page with no comment yet has no thread row; its first comment creates one.
    if (this.threadId === null) await this.#locate(false);
    if (this.threadId === null) return;
    let events: StoredEvent[];
    do {
      events = await eventsAfter(this.db.kysely, this.threadId, this.cursor, PAGE);
      for (const item of await this.#liveFrames(events)) this.#broadcast(item);
      if (events.length > 0) this.cursor = Math.max(this.cursor, events[events.length - 1].seq);
    } while (events.length === PAGE);
  }

  #broadcast(item: Frame): void {
    if (item.seq !== null) this.cursor = Math.max(this.cursor, item.seq);
    for (const reader of this.readers) reader.offer(item);
  }

  /**
   * Frames for new events. Counts go out at once when the comment's were not sent within the last
   * second; otherwise they are sent together when the second is over, read then (so the last vote
   * of a burst is always shown).
   */
  async #liveFrames(events: StoredEvent[]): Promise<Frame[]> {
    const now = Date.now();
    const immediate = new Set<string>();
    const sentNow = new Set<number>();
    for (const event of events) {
      if (event.type !== 'comment.counts') continue;
      const last = this.#countsSentAt.get(event.comment_id) ?? 0;
      if (now - last >= COUNTS_INTERVAL_MS && !immediate.has(event.comment_id)) {
        immediate.add(event.comment_id);
        sentNow.add(event.seq);
        this.#countsSentAt.set(event.comment_id, now);
      } else {
        this.#dirtyCounts.add(event.comment_id);
      }
    }
    if (this.#dirtyCounts.size > 0) this.#countsTimer ??= setTimeout(() => void this.#flushCounts(), COUNTS_INTERVAL_MS);
    const counts = await publicCounts(this.db.kysely, [...immediate]);
    const frames: Frame[] = [];
    for (const event of events) {
      if (event.type !== 'comment.counts') frames.push(eventFrame(event));
      else if (sentNow.has(event.seq) && counts.has(event.comment_id)) {
        frames.push(frame({ type: 'comment.counts', comment_id: event.comment_id, ...counts.get(event.comment_id)! }, event.seq));
      }
    }
    return frames;
  }

  async #flushCounts(): Promise<void> {
    this.#countsTimer = null;
    const ids = [...this.#dirtyCounts];
    this.#dirtyCounts.clear();
    try {
      const counts = await publicCounts(this.db.kysely, ids);
      const now = Date.now();
      for (const [id, shown] of counts) {
        this.#countsSentAt.set(id, now);
        this.#broadcast(frame({ type: 'comment.counts', comment_id: id, ...shown }));
      }
    } catch (error) {
      this.log.warn({ err: error }, 'live: reading counts failed');
    }
    // Forget comments whose second is long over, so the map holds only the recently voted.
    for (const [id, at] of this.#countsSentAt) if (Date.now() - at > 10 * COUNTS_INTERVAL_MS) this.#countsSentAt.delete(id);
  }

  /**
   * Brings a new reader up to the thread's latest event: from `lastEventId` when it says what it has
   * seen (replayed from the kept events), or a `reset` when that is too old, unknown, or ahead of the
   * thread. Broadcasts meanwhile wait in the reader, and follow.
   */
  async attach(reader: Reader, lastEventId: number | null): Promise<void> {
    await this.ready;
    this.readers.add(reader);
    if (lastEventId !== null && lastEventId > this.cursor) await this.pull();
    const target = this.cursor;
    if (lastEventId === null || lastEventId === target) return this.#start(reader, target);
    const position = lastEventId < target ? await threadPosition(this.db.kysely, this.siteId, this.urlKey) : null;
    const replayable =
      position !== null && position.oldestKept !== null && position.oldestKept <= lastEventId + 1 && target - lastEventId <= KEPT_EVENTS;
    if (!replayable) {
      reader.write(frame({ type: 'reset' }, target).text);
      return this.#start(reader, target);
    }
    const events = (await eventsAfter(this.db.kysely, position.threadId, lastEventId, target - lastEventId)).filter((e) => e.seq <= target);
    for (const item of await replayFrames(this.db, events)) reader.write(item.text);
    this.#start(reader, target);
  }

  #start(reader: Reader, at: number): void {
    reader.write(frame({ type: 'ready' }, at).text);
    reader.catchUp(at);
  }

  close(): void {
    if (this.#countsTimer) clearTimeout(this.#countsTimer);
    this.#countsTimer = null;
  }
}

function eventFrame(event: StoredEvent): Frame {
  if (event.type === 'reset') return frame({ type: 'reset' }, event.seq);
  const body = event.data === null ? { type: event.type, comment_id: event.comment_id } : { type: event.type, comment: JSON.parse(event.data) };
  return frame(body, event.seq);
}

/** A replay sends each comment's counts once, as they are now, at the place of its last counts event. */
async function replayFrames(db: Db, events: StoredEvent[]): Promise<Frame[]> {
  const lastCounts = new Map<string, number>();
  for (const event of events) if (event.type === 'comment.counts') lastCounts.set(event.comment_id, event.seq);
  const counts = await publicCounts(db.kysely, [...lastCounts.keys()]);
  const frames: Frame[] = [];
  for (const event of events) {
    if (event.type !== 'comment.counts') frames.push(eventFrame(event));
    else if (lastCounts.get(event.comment_id) === event.seq && counts.has(event.comment_id)) {
      frames.push(frame({ type: 'comment.counts', comment_id: event.comment_id, ...counts.get(event.comment_id)! }, event.seq));
    }
  }
  return frames;
}
