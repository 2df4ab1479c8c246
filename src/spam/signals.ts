import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { clientKey } from '../ratelimits/client-key.ts';
import type { Signal, SignalLog } from './signal-log.ts';
import { DAY_MS, SIGNALS_KEPT } from './signal-store.ts';

const HOUR_MS = 3_600_000;

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

/** What the duplicate and velocity checks read of a new comment's standing. */
export interface Standing {
  /** Whether anyone posted the text on the site in the last day (readCopies then says who). */
  copied: boolean;
  /** Whether the guest's IP range, the thread and the site have reached their thresholds of comments in their windows. */
  ipRangeFull: boolean;
  threadFull: boolean;
  siteFull: boolean;
}

/** The thresholds of the read (0: that check is off). */
export interface Limits {
  /** Whether to look for copies of the text at all (short texts and API keys' comments are never copies). */
  copies: boolean;
  ipRange: number;
  thread: number;
  site: number;
}

const MINUTE_MS = 60_000;
const TEN_MINUTES_MS = 600_000;

/**
 * A site may have kept a threshold above what the log holds from before the settings' maximum was
 * the log's size: it counts as the largest a window can reach.
 */
const reachable = (threshold: number) => Math.min(threshold, SIGNALS_KEPT);

/** A new comment's copies and windows, read in the log: no statement. */
export function readStanding(log: SignalLog, signal: Signal, limits: Limits): Standing {
  const { siteId, at: now } = signal;
  const [ipRange, thread, site] = [reachable(limits.ipRange), reachable(limits.thread), reachable(limits.site)];
  return {
    copied: limits.copies && (log.lastWithText(siteId, signal.textHash)?.at ?? 0) >= now - DAY_MS,
    ipRangeFull: signal.ipRange !== null && ipRange > 0 && log.full(siteId, { range: signal.ipRange }, ipRange, TEN_MINUTES_MS, now),
    threadFull: thread > 0 && log.full(siteId, { thread: signal.threadKey }, thread, MINUTE_MS, now),
    siteFull: site > 0 && log.full(siteId, 'site', site, MINUTE_MS, now),
  };
}

/** Who posted a text before: the same author within a day, and how many others within an hour. */
export interface Copies {
  sameAuthor: boolean;
  /** Authors (this one included once) who posted the text on the site in the last hour, counted up to `authorsLimit` others. */
  authors: number;
}

export function readCopies(log: SignalLog, signal: Signal, authorsLimit: number): Copies {
  let sameAuthor = false;
  const others = new Set<string>();
  for (const copy of log.withText(signal.siteId, signal.textHash, signal.at - DAY_MS)) {
    if (copy.authorKey === signal.authorKey) sameAuthor = true;
    else if (copy.at >= signal.at - HOUR_MS && others.size < authorsLimit) others.add(copy.authorKey);
    // A campaign's text has thousands of copies: past what can still change the answer, none is read.
    if (sameAuthor && (others.size >= authorsLimit || copy.at < signal.at - HOUR_MS)) break;
  }
  return { sameAuthor, authors: others.size + 1 };
}

/** The other comments of the last hour on the site with this text, that the public sees now (at most 200). */
export async function publicCopies(db: Kysely<Database>, log: SignalLog, signal: Signal) {
  const ids: string[] = [];
  for (const copy of log.withText(signal.siteId, signal.textHash, signal.at - HOUR_MS)) if (ids.push(copy.commentId) === 200) break;
  if (ids.length === 0) return [];
  return db
    .selectFrom('comments as c')
    .innerJoin('threads as t', 't.id', 'c.thread_id')
    .selectAll('c')
    .select('t.url_key as thread_url')
    .where('c.id', 'in', ids)
    .where('c.status', '=', 'published')
    .where('c.moderation_status', 'is', null)
    .where('c.is_deleted', '=', 0)
    .execute();
}
