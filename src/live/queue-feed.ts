import type { FastifyBaseLogger } from 'fastify';
import { decodeTime } from 'ulid';
import type { Db } from '../db/connect.ts';
import { eventIdAt, QUEUE_KEPT_MS } from './queue-record.ts';
import { queueEventsAfter, type QueueEventRow } from './repository.ts';
import type { Frame, Reader } from './reader.ts';
import { SingleRead } from './single-read.ts';

/**
 * An event id is drawn inside its transaction, before the commit; one committed up to this long after
 * is still sent. So every read goes back this far, and what was sent in that window is remembered.
 */
export const QUEUE_GRACE_MS = 10_000;
/** A resume with more changes to replay than this gets `reset`: reloading the queue is cheaper. */
const REPLAY_MAX = 1000;
const PAGE = 500;
/** Sites per statement: an `in` list stays far below both databases' parameter limits. */
const SITES_PER_READ = 500;

/** A position that is no event: before every event id drawn from `ms` on. */
const positionAt = (ms: number) => eventIdAt(ms).padEnd(30, '0');
const timeOf = (eventId: string) => decodeTime(eventId.slice(4).toUpperCase());

function queueFrame(row: QueueEventRow): Frame {
  const data = { type: row.type, comment_id: row.comment_id, site_id: row.site_id, status: row.status, ...(row.action !== null && { action: row.action }) };
  return { seq: null, eventId: row.id, text: `id: ${row.id}\ndata: ${JSON.stringify(data)}\n\n` };
}

/**
 * The moderation queue's changes for this instance's staff streams. Announcements (any change of a
 * site, or a flag) and the hub's heartbeat make it read the watched sites' recent changes and send
 * each once, to the streams of its site. Event ids follow the time they were drawn, not commit
 * order, so each read covers the last QUEUE_GRACE_MS (and since the last read that worked).
 */
export class QueueFeed {
  readonly readers = new Set<Reader>();
  readonly #readersOf = new Map<string, Set<Reader>>();
  /** Ids sent within the window a read covers. */
  #sent = new Set<string>();
  /** When the last read that worked began; the next reads from QUEUE_GRACE_MS before it. */
  #readAt: number | null = null;
  readonly #reads = new SingleRead(
    () => this.#pullOnce(),
    (error) => this.log.warn({ err: error }, 'live: reading moderation queue changes failed; the next check retries'),
  );

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
  ) {}

  watches(siteId: string): boolean {
    return this.#readersOf.has(siteId);
  }

  /**
   * Starts a reader on these sites. With `lastEventId` it first gets the changes since then (and any of
   * the QUEUE_GRACE_MS before it: each says the comment's status, so one seen twice does no harm), or
   * `reset` when there are more than REPLAY_MAX or the id is past keeping. Changes sent meanwhile wait
   * in the reader, and follow.
   */
  async attach(reader: Reader, siteIds: string[], lastEventId: string | null): Promise<void> {
    await this.#watch(reader, siteIds);
    const now = Date.now();
    const replayed = new Set<string>();
    if (lastEventId !== null) {
      const since = timeOf(lastEventId);
      const rows = since < now - QUEUE_KEPT_MS || since > now + QUEUE_GRACE_MS ? null : await this.#read(siteIds, positionAt(since - QUEUE_GRACE_MS), REPLAY_MAX + 1);
      if (rows === null || rows.length > REPLAY_MAX) reader.write(`data: ${JSON.stringify({ type: 'reset' })}\n\n`);
      else for (const row of rows) (reader.write(queueFrame(row).text), replayed.add(row.id));
    }
    // `ready` carries a position, so a stream that has had no change yet still resumes from its start.
    reader.write(`id: ${positionAt(now)}\ndata: ${JSON.stringify({ type: 'ready' })}\n\n`);
    reader.catchUp(0, replayed);
  }

  /** Sites read for the first time mark their window's changes as sent: a new stream starts from now. */
  async #watch(reader: Reader, siteIds: string[]): Promise<void> {
    const fresh = siteIds.filter((id) => !this.#readersOf.has(id));
    if (fresh.length > 0) for (const row of await this.#read(fresh, this.#floor(), Number.MAX_SAFE_INTEGER)) this.#sent.add(row.id);
    this.readers.add(reader);
    for (const id of siteIds) {
      let readers = this.#readersOf.get(id);
      if (!readers) this.#readersOf.set(id, (readers = new Set()));
      readers.add(reader);
    }
    reader.onClose(() => {
      this.readers.delete(reader);
      for (const id of siteIds) {
        const readers = this.#readersOf.get(id);
        readers?.delete(reader);
        if (readers?.size === 0) this.#readersOf.delete(id);
      }
    });
  }

  #floor(): string {
    return positionAt((this.#readAt ?? Date.now()) - QUEUE_GRACE_MS);
  }

  /** The changes of these sites after `after`, oldest first, at most `limit`, a page of sites at a time. */
  async #read(siteIds: string[], after: string, limit: number): Promise<QueueEventRow[]> {
    const rows: QueueEventRow[] = [];
    for (let i = 0; i < siteIds.length; i += SITES_PER_READ) {
      const sites = siteIds.slice(i, i + SITES_PER_READ);
      let from = after;
      for (;;) {
        const page = await queueEventsAfter(this.db.kysely, sites, from, Math.min(PAGE, limit));
        rows.push(...page);
        if (page.length < Math.min(PAGE, limit) || rows.length >= limit) break;
        from = page[page.length - 1].id;
      }
    }
    return rows.sort((a, b) => (a.id < b.id ? -1 : 1)).slice(0, limit);
  }

  /** Reads and sends what is new (see SingleRead: one read at a time, none missed). */
  pull(): Promise<void> {
    return this.#reads.run();
  }

  async #pullOnce(): Promise<void> {
    if (this.#readersOf.size === 0) return;
    const startedAt = Date.now();
    const floor = this.#floor();
    for (const row of await this.#read([...this.#readersOf.keys()], floor, Number.MAX_SAFE_INTEGER)) {
      if (this.#sent.has(row.id)) continue;
      this.#sent.add(row.id);
      const item = queueFrame(row);
      for (const reader of this.#readersOf.get(row.site_id) ?? []) reader.offer(item);
    }
    this.#readAt = startedAt;
    const kept = this.#floor();
    for (const id of this.#sent) if (id < kept) this.#sent.delete(id);
  }
}
