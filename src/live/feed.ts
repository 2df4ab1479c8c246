import type { FastifyBaseLogger } from 'fastify';
import { publicViewRows } from '../comments/repository.ts';
import { toView } from '../comments/view.ts';
import type { Db } from '../db/connect.ts';
import { KEPT_EVENTS } from './record.ts';
import { frame, type Frame, type Reader } from './reader.ts';
import { countsChangedSince, eventsAfter, eventTime, publicCounts, threadPosition, type StoredEvent } from './repository.ts';
import { SingleRead } from './single-read.ts';

/** Counts of one comment are sent at most once per this, however many votes arrive. */
export const COUNTS_INTERVAL_MS = 1000;
/**
 * A counts stamp is taken before its transaction commits; one committed up to this long after is
 * still found, as every look for counts goes back this far before the last look that worked.
 */
export const COUNTS_GRACE_MS = 10_000;
/** A resume with more comments whose counts changed than this gets `reset` instead. */
const REPLAY_COUNTS = 500;
const PAGE = 500;

/**
 * The readers of one thread on this instance, and how far they have been sent. The database's
 * sequence is the truth: an announcement (local, or from another instance through Redis) only says
 * "look again", and each look reads every event after the last one sent, so a lost announcement
 * delays events until the next look (the hub's periodic check) but never loses them. Votes and
 * reactions are not in the sequence: each look also reads the thread's comments whose counts were
 * stamped since the last look (record.ts, countsChangeStamp), and sends their counts without a number.
 */
export class Feed {
  readonly readers = new Set<Reader>();
  threadId: string | null = null;
  /** The number of the last event broadcast to this thread's readers. */
  cursor = 0;
  readonly ready: Promise<void>;
  readonly #reads = new SingleRead(
    () => this.#pullOnce(),
    (error) => this.log.warn({ err: error, site_id: this.siteId }, 'live: reading new events failed; the next check retries'),
  );
  #countsSentAt = new Map<string, number>();
  #dirtyCounts = new Set<string>();
  #countsTimer: ReturnType<typeof setTimeout> | null = null;
  /** The stamp of each comment's counts change already handled, for those within the window a look covers. */
  readonly #countsSeen = new Map<string, string>();
  /** When the last look for counts that worked began. */
  countsReadAt = Date.now();

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

  /** Reads and sends what is new (see SingleRead: one read at a time, none missed). */
  pull(): Promise<void> {
    return this.#reads.run();
  }

  async #pullOnce(): Promise<void> {
    await this.ready.catch(() => undefined);
    // A page with no comment yet has no thread row; its first comment creates one.
    if (this.threadId === null) await this.#locate(false);
    if (this.threadId === null) return;
    let events: StoredEvent[];
    do {
      events = await eventsAfter(this.db.kysely, this.threadId, this.cursor, PAGE);
      for (const item of await eventFrames(this.db, this.urlKey, events)) this.#broadcast(item);
      if (events.length > 0) this.cursor = Math.max(this.cursor, events[events.length - 1].seq);
    } while (events.length === PAGE);
    await this.#pullCounts(this.threadId);
  }

  /** Counts stamped since the last look (less the grace), each change handled once. */
  async #pullCounts(threadId: string): Promise<void> {
    const startedAt = Date.now();
    const since = new Date(this.countsReadAt - COUNTS_GRACE_MS).toISOString();
    const changed: string[] = [];
    for (const row of await countsChangedSince(this.db.kysely, threadId, since)) {
      if (this.#countsSeen.get(row.id) === row.counts_changed_at) continue;
      this.#countsSeen.set(row.id, row.counts_changed_at);
      changed.push(row.id);
    }
    for (const item of await this.#countsFrames(changed)) this.#broadcast(item);
    this.countsReadAt = startedAt;
    const kept = new Date(startedAt - COUNTS_GRACE_MS).toISOString();
    for (const [id, stamp] of this.#countsSeen) if (stamp < kept) this.#countsSeen.delete(id);
  }

  #broadcast(item: Frame): void {
    if (item.seq !== null) this.cursor = Math.max(this.cursor, item.seq);
    for (const reader of this.readers) reader.offer(item);
  }

  /**
   * Frames for comments whose counts changed. Counts go out at once when the comment's were not sent
   * within the last second; otherwise they are sent together when the second is over, read then (so
   * the last vote of a burst is always shown).
   */
  async #countsFrames(ids: string[]): Promise<Frame[]> {
    const now = Date.now();
    const immediate: string[] = [];
    for (const id of ids) {
      if (now - (this.#countsSentAt.get(id) ?? 0) >= COUNTS_INTERVAL_MS) {
        immediate.push(id);
        this.#countsSentAt.set(id, now);
      } else {
        this.#dirtyCounts.add(id);
      }
    }
    if (this.#dirtyCounts.size > 0) this.#countsTimer ??= setTimeout(() => void this.#flushCounts(), COUNTS_INTERVAL_MS);
    return countsFrames(this.db, immediate);
  }

  async #flushCounts(): Promise<void> {
    this.#countsTimer = null;
    const ids = [...this.#dirtyCounts];
    this.#dirtyCounts.clear();
    try {
      const frames = await countsFrames(this.db, ids);
      const now = Date.now();
      for (const id of ids) this.#countsSentAt.set(id, now);
      for (const item of frames) this.#broadcast(item);
    } catch (error) {
      this.log.warn({ err: error }, 'live: reading counts failed');
    }
    // Forget comments whose second is long over, so the map holds only the recently voted.
    for (const [id, at] of this.#countsSentAt) if (Date.now() - at > 10 * COUNTS_INTERVAL_MS) this.#countsSentAt.delete(id);
  }

  /**
   * Brings a new reader up to the thread's latest event: from `lastEventId` when it says what it has
   * seen (the kept events replayed, then the counts of comments stamped since that event, less the
   * grace), or a `reset` when that is too old, unknown, ahead of the thread, or too many counts
   * changed. Broadcasts meanwhile wait in the reader, and follow.
   */
  async attach(reader: Reader, lastEventId: number | null): Promise<void> {
    await this.ready;
    this.readers.add(reader);
    if (lastEventId !== null && lastEventId > this.cursor) await this.pull();
    const target = this.cursor;
    if (lastEventId === null) return this.#start(reader, target);
    const position = lastEventId <= target ? await threadPosition(this.db.kysely, this.siteId, this.urlKey) : null;
    // No thread yet: nothing has happened since.
    if (position === null && lastEventId === target) return this.#start(reader, target);
    const replayable =
      position !== null &&
      (lastEventId === target || (position.oldestKept !== null && position.oldestKept <= lastEventId + 1 && target - lastEventId <= KEPT_EVENTS));
    const counts = replayable ? await this.#countsSince(position.threadId, lastEventId) : null;
    if (!replayable || counts === null) {
      reader.write(frame({ type: 'reset' }, target).text);
      return this.#start(reader, target);
    }
    const events = lastEventId < target ? (await eventsAfter(this.db.kysely, position.threadId, lastEventId, target - lastEventId)).filter((e) => e.seq <= target) : [];
    for (const item of await eventFrames(this.db, this.urlKey, events)) reader.write(item.text);
    for (const item of await countsFrames(this.db, counts)) reader.write(item.text);
    this.#start(reader, target);
  }

  /** Comments whose counts changed since the thread's event `seq` was recorded (less the grace); null when too many to replay. */
  async #countsSince(threadId: string, seq: number): Promise<string[] | null> {
    const at = await eventTime(this.db.kysely, threadId, seq);
    const since = at === null ? '' : new Date(Date.parse(at) - COUNTS_GRACE_MS).toISOString();
    const ids = (await countsChangedSince(this.db.kysely, threadId, since)).map((row) => row.id);
    return ids.length > REPLAY_COUNTS ? null : ids;
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

/**
 * The frames of these events, each showing its comment as the public sees it now, read in one
 * statement: an event of a comment the public no longer sees (removed, held, shadow-banned, under a
 * hidden comment) says only that it is hidden, so a replay shows nothing the public may not see now.
 */
async function eventFrames(db: Db, threadUrl: string, events: StoredEvent[]): Promise<Frame[]> {
  const shown = events.filter((event) => event.type !== 'reset' && event.type !== 'comment.hidden').map((event) => event.comment_id);
  const rows = new Map((await publicViewRows(db.kysely, [...new Set(shown)])).map((row) => [row.id, row]));
  return events.map((event) => {
    if (event.type === 'reset') return frame({ type: 'reset' }, event.seq);
    const row = rows.get(event.comment_id);
    if (!row) return frame({ type: 'comment.hidden', comment_id: event.comment_id }, event.seq);
    return frame({ type: event.type, comment: toView(row, threadUrl) }, event.seq);
  });
}

/** The counts of these comments as they are now, for those the public still sees; frames outside the sequence. */
async function countsFrames(db: Db, ids: string[]): Promise<Frame[]> {
  const counts = await publicCounts(db.kysely, ids);
  return [...counts].map(([id, shown]) => frame({ type: 'comment.counts', comment_id: id, ...shown }));
}
