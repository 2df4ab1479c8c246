import { sql, type Kysely, type RawBuilder } from 'kysely';
import { preparedInsert, preparedQuery } from '../db/prepared.ts';
import type { Database } from '../db/schema.ts';
import { clientKey } from '../ratelimits/client-key.ts';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Signals older than this count for nothing; a site's are cleared once every PRUNE_EVERY writes of the process. */
const KEPT_MS = DAY_MS + HOUR_MS;
const PRUNE_EVERY = 500;
let writesSincePrune = 0;

/** A guest's velocity range: the /24 of an IPv4 address, the /64 of an IPv6 one (clientKey's). */
export function ipRangeOf(ip: string): string {
  const key = clientKey(ip);
  const v4 = /^(\d{1,3}\.\d{1,3}\.\d{1,3})\.\d{1,3}$/.exec(key);
  return v4 ? `${v4[1]}.0/24` : key;
}

/** Who a signal is from: the author's ref, or a guest's address (an IPv6 guest's /64). */
export function authorKeyOf(authorRef: string | null, ip: string): string {
  return authorRef ?? `ip:${clientKey(ip)}`;
}

export interface Signal {
  commentId: string;
  siteId: string;
  threadKey: string;
  authorKey: string;
  ipRange: string | null;
  textHash: string;
}

/** What the duplicate, velocity and history checks read of a new comment's standing, in one statement. */
export interface Standing {
  /** Whether anyone posted the text on the site in the last day (readCopies then says who). */
  copied: boolean;
  /** Whether the guest's IP range, the thread and the site have reached their thresholds of comments in their windows. */
  ipRangeFull: boolean;
  threadFull: boolean;
  siteFull: boolean;
  published: number;
  removedOrSpam: number;
  total: number;
}

/** The thresholds the read is bounded by (0: that check is off, and not read). */
export interface Limits {
  /** Whether to look for copies of the text at all (short texts and API keys' comments are never copies). */
  copies: boolean;
  ipRange: number;
  thread: number;
  site: number;
  /** Whether to read the author's record (author_counts). */
  authorRef: string | null;
}

/**
 * The signal or comment `offset` (threshold − 1) places from the newest of the index's range inside
 * the window: there is one when the window holds the threshold's number. One probe with no count,
 * that stops at the window's start: a site whose last day holds more signals than the threshold but
 * whose last minute is quiet walks only that minute's, not the threshold's number back into the day.
 */
const kthNewest = (table: 'spam_signals' | 'comments', range: RawBuilder<unknown>, offset: number, since: unknown) =>
  sql<string | null>`(select created_at from ${sql.table(table)} where ${range} and created_at >= ${since} order by created_at desc limit 1 offset ${sql.lit(offset)})`;

/**
 * Windows known to be full, until when. A window that holds its threshold's comments stays full
 * until its k-th newest leaves it: signals and comments are only added within a window (other
 * instances add theirs; signals are removed only once expired, comments only with their site), so
 * until then no probe is needed. In a flood every comment would walk the threshold's number of
 * index entries (120 for a site by default); this walks them once per window's turn. Keyed by what
 * the window counts and its threshold; past FULL_KEPT keys the oldest go.
 */
const fullUntil = new Map<string, number>();
const FULL_KEPT = 10_000;

function knownFull(key: string, now: number): boolean {
  const until = fullUntil.get(key);
  if (until === undefined) return false;
  if (until > now) return true;
  fullUntil.delete(key);
  return false;
}

function noteFull(key: string, kth: string | null, windowMs: number): boolean {
  if (kth === null) return false;
  if (fullUntil.size >= FULL_KEPT) fullUntil.delete(fullUntil.keys().next().value!);
  fullUntil.set(key, Date.parse(kth) + windowMs);
  return true;
}

/**
 * Its shape: whether copies are looked for, and each velocity probe's offset, written into the SQL
 * (null: not read, the check being off or its window known full). A thread's pace is read from its
 * comments (every comment of the last minute, however it was posted), through the index by thread
 * and time that the moderation queue reads; a site's and a range's from the signals.
 */
interface StandingShape {
  copies: boolean;
  ipRange: number | null;
  thread: number | null;
  site: number | null;
}

const standingQuery = preparedQuery(
  (db, shape: StandingShape, siteId: string, textHash: string, ipRange: string | null, threadKey: string, authorRef: string | null,
    dayAgo: string, tenMinutesAgo: string, minuteAgo: string) => {
    const probe = (offset: number | null, table: 'spam_signals' | 'comments', range: RawBuilder<unknown>, since: string) =>
      offset === null ? sql`null` : kthNewest(table, range, offset, since);
    return sql<{ copied: number; ipRangeKth: string | null; threadKth: string | null; siteKth: string | null } & Record<'published' | 'removedOrSpam' | 'total', number | string | null>>`select
        ${shape.copies ? sql`case when exists (select 1 from spam_signals where site_id = ${siteId} and text_hash = ${textHash} and created_at >= ${dayAgo}) then 1 else 0 end` : sql`0`} as "copied",
        ${probe(shape.ipRange, 'spam_signals', sql`site_id = ${siteId} and ip_range = ${ipRange}`, tenMinutesAgo)} as "ipRangeKth",
        ${probe(shape.thread, 'comments', sql`thread_id = (select id from threads where site_id = ${siteId} and url_key = ${threadKey})`, minuteAgo)} as "threadKth",
        ${probe(shape.site, 'spam_signals', sql`site_id = ${siteId}`, minuteAgo)} as "siteKth",
        a.published as "published",
        a.removed + a.spam as "removedOrSpam",
        a.published + a.pending + a.removed + a.spam as "total"
      from (select 1 as one) as o
      left join author_counts as a on a.site_id = ${siteId} and a.author_ref = ${authorRef}`.compile(db);
  },
);

const MINUTE_MS = 60_000;
const TEN_MINUTES_MS = 600_000;

export async function readStanding(db: Kysely<Database>, signal: Signal, limits: Limits, now: number): Promise<Standing> {
  const windows = {
    ipRange: signal.ipRange !== null && limits.ipRange > 0 ? `ip:${limits.ipRange}:${signal.siteId}:${signal.ipRange}` : null,
    thread: limits.thread > 0 ? `thread:${limits.thread}:${signal.siteId}:${signal.threadKey}` : null,
    site: limits.site > 0 ? `site:${limits.site}:${signal.siteId}` : null,
  };
  const full = {
    ipRange: windows.ipRange !== null && knownFull(windows.ipRange, now),
    thread: windows.thread !== null && knownFull(windows.thread, now),
    site: windows.site !== null && knownFull(windows.site, now),
  };
  const offset = (window: keyof typeof windows) => (windows[window] === null || full[window] ? null : limits[window] - 1);
  const shape = { copies: limits.copies, ipRange: offset('ipRange'), thread: offset('thread'), site: offset('site') };
  // A window's start only when the statement reads it: formatting a time costs V8 about 7,000
  // instructions (clock.ts), and in a flood the full windows are not read.
  const since = (needed: boolean, ms: number) => (needed ? new Date(now - ms).toISOString() : '');
  const [row] = await standingQuery(
    db, shape, signal.siteId, signal.textHash, signal.ipRange, signal.threadKey, limits.authorRef,
    since(shape.copies, DAY_MS), since(shape.ipRange !== null, TEN_MINUTES_MS), since(shape.thread !== null || shape.site !== null, MINUTE_MS),
  );
  return {
    copied: Number(row.copied) === 1,
    ipRangeFull: full.ipRange || (windows.ipRange !== null && noteFull(windows.ipRange, row.ipRangeKth, TEN_MINUTES_MS)),
    threadFull: full.thread || (windows.thread !== null && noteFull(windows.thread, row.threadKth, MINUTE_MS)),
    siteFull: full.site || (windows.site !== null && noteFull(windows.site, row.siteKth, MINUTE_MS)),
    published: Number(row.published ?? 0),
    removedOrSpam: Number(row.removedOrSpam ?? 0),
    total: Number(row.total ?? 0),
  };
}

/** Who posted a text before: the same author within a day, and how many others within an hour. */
export interface Copies {
  sameAuthor: boolean;
  /** Authors (this one included once) who posted the text on the site in the last hour, counted up to `authorsLimit` others. */
  authors: number;
}

/**
 * Read only for a text that readStanding saw copied, which most are not: the distinct authors take
 * a sort (a temporary b-tree), which in the write's transaction cost more than the other checks
 * together. With `authorsLimit` 0 they are not counted.
 */
export async function readCopies(db: Kysely<Database>, signal: Signal, authorsLimit: number, now: number): Promise<Copies> {
  const [row] = await copiesQuery(
    db, authorsLimit, signal.siteId, signal.textHash, signal.authorKey,
    new Date(now - DAY_MS).toISOString(), new Date(now - HOUR_MS).toISOString(),
  );
  return { sameAuthor: Number(row.sameAuthor) === 1, authors: Number(row.authors) + 1 };
}

/**
 * Its shape is the site's authors limit (0: authors not counted), written into the SQL: SQLite
 * prepares a statement again on every run when its LIMIT is bound (see sqlite-driver.ts).
 */
const copiesQuery = preparedQuery(
  (db, authorsLimit: number, siteId: string, textHash: string, authorKey: string, dayAgo: string, hourAgo: string) => {
    const copies = sql`from spam_signals where site_id = ${siteId} and text_hash = ${textHash}`;
    return sql<{ sameAuthor: number | string; authors: number | string }>`select
        case when exists (select 1 ${copies} and author_key = ${authorKey} and created_at >= ${dayAgo}) then 1 else 0 end as "sameAuthor",
        ${authorsLimit > 0
          ? sql`(select count(*) from (select distinct author_key ${copies} and created_at >= ${hourAgo} and author_key <> ${authorKey} limit ${sql.lit(authorsLimit)}) as a)`
          : sql`0`} as "authors"`.compile(db);
  },
);

const insertSignal = preparedInsert('spam_signals');

/** Keeps the comment's signal for the checks of later comments; now and then clears the expired ones. */
export async function recordSignal(db: Kysely<Database>, signal: Signal, createdAt: string): Promise<void> {
  await insertSignal(db, {
    comment_id: signal.commentId,
    site_id: signal.siteId,
    thread_key: signal.threadKey,
    author_key: signal.authorKey,
    ip_range: signal.ipRange,
    text_hash: signal.textHash,
    created_at: createdAt,
  });
  writesSincePrune += 1;
  if (writesSincePrune >= PRUNE_EVERY) {
    writesSincePrune = 0;
    // The writing site's expired signals, through its (site_id, created_at) index; a site that stops
    // writing keeps at most its last day.
    const expired = new Date(Date.parse(createdAt) - KEPT_MS).toISOString();
    await db.deleteFrom('spam_signals').where('site_id', '=', signal.siteId).where('created_at', '<', expired).execute();
  }
}

/** The other comments of the last hour on the site with this text, that the public sees now (at most 200). */
export async function publicCopies(db: Kysely<Database>, siteId: string, textHash: string, now: number) {
  return db
    .selectFrom('spam_signals as s')
    .innerJoin('comments as c', 'c.id', 's.comment_id')
    .innerJoin('threads as t', 't.id', 'c.thread_id')
    .selectAll('c')
    .select('t.url_key as thread_url')
    .where('s.site_id', '=', siteId)
    .where('s.text_hash', '=', textHash)
    .where('s.created_at', '>=', new Date(now - HOUR_MS).toISOString())
    .where('c.status', '=', 'published')
    .where('c.moderation_status', 'is', null)
    .where('c.is_deleted', '=', 0)
    .limit(200)
    .execute();
}
