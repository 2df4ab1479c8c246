import type { Kysely } from 'kysely';
import type { DialectName } from '../db/dialect.ts';
import { preparedQuery } from '../db/prepared.ts';
import type { Database } from '../db/schema.ts';
import { SignalLog, type Signal } from './signal-log.ts';

export const DAY_MS = 86_400_000;
/** The longest window a check reads: the same author's text within a day. */
const KEPT_MS = DAY_MS;
/**
 * Signals an instance keeps in memory, across its sites: about 460 bytes each (9 MB in all). A
 * deployment writing more than this in a day checks copies of the same author against its last
 * 20,000 comments, not the whole day; the velocity windows (a minute, ten) stay whole.
 */
export const SIGNALS_KEPT = 20_000;
/** How soon a comment's signal is written after its commit, in one insert with the others of that time. */
const WRITE_AFTER_MS = 100;
/** The most rows one insert writes (7 values a row: far from SQLite's and PostgreSQL's limits on values). */
const ROWS_PER_INSERT = 256;
/** How often an instance on PostgreSQL reads the signals other instances wrote. */
const READ_OTHERS_EVERY_MS = 1_000;
/** How far back that read looks past the newest signal seen: another instance's write lands up to its write delay late. */
const READ_OTHERS_OVERLAP_MS = 2_000;
const PRUNE_EVERY_MS = 600_000;

const COLUMNS = ['comment_id', 'site_id', 'thread_key', 'author_key', 'ip_range', 'text_hash', 'created_at'] as const;
type SignalRow = Database['spam_signals'];
/** A signal's values in the order of COLUMNS. */
const valuesOf = (signal: Signal) => [signal.commentId, signal.siteId, signal.threadKey, signal.authorKey, signal.ipRange, signal.textHash, new Date(signal.at).toISOString()];

/**
 * An insert of `rows` signals, compiled once for each power of two: a batch of any size is written
 * in at most nine of them, where Kysely built each batch's insert row by row.
 */
const insertSignals = preparedQuery((db, rows: number, ...values: unknown[]) =>
  db
    .insertInto('spam_signals')
    .values(Array.from({ length: rows }, (_, row) => Object.fromEntries(COLUMNS.map((column, i) => [column, values[row * COLUMNS.length + i]])) as unknown as SignalRow))
    .compile(),
);

const fromRow = (row: SignalRow): Signal => ({
  commentId: row.comment_id,
  siteId: row.site_id,
  threadKey: row.thread_key,
  authorKey: row.author_key,
  ipRange: row.ip_range,
  textHash: row.text_hash,
  at: Date.parse(row.created_at),
});

/**
 * The spam checks' signals: read from memory, written to the database behind the comments. A
 * screened comment's signal joins the log at once, so the comments after it see it, even those
 * committed in the same group; it is written once the comment has committed, with the others of the
 * next 100 ms in one insert, off the request path. The table is what survives a restart (the log is
 * filled from it on first use) and, on PostgreSQL, how instances see each other's comments: each
 * reads the signals written since its last read every second. A crash loses the signals of the
 * last 100 ms, which the checks then do not count: signals are evidence, not data anyone reads back.
 */
export class SignalStore {
  readonly log = new SignalLog(KEPT_MS, SIGNALS_KEPT);
  #loading: Promise<void> | null = null;
  #loaded = false;
  #unwritten: Signal[] = [];
  #writeTimer: NodeJS.Timeout | null = null;
  #writing: Promise<void> | null = null;
  #readTimer: NodeJS.Timeout | null = null;
  #reading: Promise<void> | null = null;
  /** The newest signal's time among those read from the table. */
  #readUpTo = 0;
  #prunedAt = 0;
  #closed = false;
  #onError: (error: unknown) => void = () => undefined;

  constructor(
    readonly db: Kysely<Database>,
    readonly dialect: DialectName,
  ) {}

  /** Where failed writes and reads are reported (they are tried again). */
  reportErrorsTo(onError: (error: unknown) => void): void {
    this.#onError = onError;
  }

  /** The log, filled from the table on first use (tried again by the next comment if that read fails). */
  async ready(): Promise<SignalLog> {
    if (!this.#loaded) {
      await (this.#loading ??= this.#load().catch((error: unknown) => {
        this.#loading = null;
        throw error;
      }));
    }
    return this.log;
  }

  async #load(): Promise<void> {
    const rows = await this.db
      .selectFrom('spam_signals')
      .selectAll()
      .where('created_at', '>=', new Date(Date.now() - KEPT_MS).toISOString())
      .orderBy('created_at', 'desc')
      .limit(SIGNALS_KEPT)
      .execute();
    for (let i = rows.length - 1; i >= 0; i--) this.log.add(fromRow(rows[i]));
    this.#readUpTo = rows.length > 0 ? Date.parse(rows[0].created_at) : Date.now();
    this.#loaded = true;
    if (this.dialect === 'postgres' && !this.#closed) {
      this.#readTimer = setInterval(() => (this.#reading ??= this.#readOthers().finally(() => (this.#reading = null))), READ_OTHERS_EVERY_MS);
      this.#readTimer.unref();
    }
  }

  /** The comment with this signal has committed: its signal goes to the table. */
  committed(signal: Signal): void {
    this.#unwritten.push(signal);
    if (this.#unwritten.length >= ROWS_PER_INSERT) this.#writeSoon(0);
    else this.#writeSoon(WRITE_AFTER_MS);
  }

  #writeSoon(delayMs: number): void {
    if (this.#writeTimer !== null && delayMs > 0) return;
    if (this.#writeTimer !== null) clearTimeout(this.#writeTimer);
    this.#writeTimer = setTimeout(() => {
      this.#writeTimer = null;
      void this.flush();
    }, delayMs);
    this.#writeTimer.unref();
  }

  /** Writes what waits; a failed write is tried again with the next (at most a log's worth waits). */
  async flush(): Promise<void> {
    while (this.#writing) await this.#writing;
    if (this.#unwritten.length === 0) return;
    const rows = this.#unwritten.splice(0, this.#unwritten.length);
    this.#writing = this.#write(rows).finally(() => (this.#writing = null));
    await this.#writing;
  }

  async #write(signals: Signal[]): Promise<void> {
    try {
      for (let start = 0; start < signals.length; ) {
        const rows = Math.min(ROWS_PER_INSERT, 2 ** Math.floor(Math.log2(signals.length - start)));
        const values = signals.slice(start, start + rows).flatMap(valuesOf);
        await insertSignals(this.db, rows, ...values);
        start += rows;
      }
      await this.#pruneNowAndThen();
    } catch (error) {
      this.#onError(error);
      this.#unwritten = [...signals, ...this.#unwritten].slice(-SIGNALS_KEPT);
      if (!this.#closed) this.#writeSoon(WRITE_AFTER_MS * 10);
    }
  }

  /** The table keeps a day and an hour: an instance reading it at its start finds its whole window. */
  async #pruneNowAndThen(): Promise<void> {
    const now = Date.now();
    if (now - this.#prunedAt < PRUNE_EVERY_MS) return;
    this.#prunedAt = now;
    await this.db.deleteFrom('spam_signals').where('created_at', '<', new Date(now - KEPT_MS - 3_600_000).toISOString()).execute();
  }

  /** The signals other instances wrote since the last read (this one's own are in the log already). */
  async #readOthers(): Promise<void> {
    try {
      const rows = await this.db
        .selectFrom('spam_signals')
        .selectAll()
        .where('created_at', '>=', new Date(this.#readUpTo - READ_OTHERS_OVERLAP_MS).toISOString())
        .orderBy('created_at')
        .limit(SIGNALS_KEPT)
        .execute();
      for (const row of rows) {
        const signal = fromRow(row);
        if (!this.log.has(signal)) this.log.add(signal);
        this.#readUpTo = Math.max(this.#readUpTo, Date.parse(row.created_at));
      }
    } catch (error) {
      this.#onError(error);
    }
  }

  /**
   * A deleted site's signals (guests' addresses among them) leave this instance's memory, and those
   * not written yet are not. Other instances' logs let theirs go within the day, unread: the site is gone.
   */
  forgetSite(siteId: string): void {
    this.log.forgetSite(siteId);
    this.#unwritten = this.#unwritten.filter((signal) => signal.siteId !== siteId);
  }

  /** Stops the timers and writes what waits, before the database closes. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#writeTimer !== null) clearTimeout(this.#writeTimer);
    if (this.#readTimer !== null) clearInterval(this.#readTimer);
    await this.#reading;
    await this.flush();
  }
}
