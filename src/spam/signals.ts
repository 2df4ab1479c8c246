import { sql, type Kysely } from 'kysely';
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

/** What the duplicate, velocity and history checks read, in one statement; every count is bounded by its threshold. */
export interface Standing {
  sameAuthorCopy: boolean;
  /** Authors (this one included once) who posted the text on the site in the last hour, counted up to `authorsLimit`. */
  copyAuthors: number;
  ipRange: number;
  thread: number;
  site: number;
  published: number;
  removedOrSpam: number;
  total: number;
}

export interface Limits {
  duplicateAuthors: number;
  ipRange: number;
  thread: number;
  site: number;
  /** Whether to read the author's record (author_counts). */
  authorRef: string | null;
}

const bounded = (query: ReturnType<typeof sql>, limit: number) => (limit > 0 ? sql<number>`(select count(*) from (${query} limit ${limit}) as b)` : sql<number>`0`);

export async function readStanding(db: Kysely<Database>, signal: Signal, limits: Limits, now: number): Promise<Standing> {
  const dayAgo = new Date(now - DAY_MS).toISOString();
  const hourAgo = new Date(now - HOUR_MS).toISOString();
  const tenMinutesAgo = new Date(now - 600_000).toISOString();
  const minuteAgo = new Date(now - 60_000).toISOString();
  const copies = sql`select 1 from spam_signals where site_id = ${signal.siteId} and text_hash = ${signal.textHash}`;
  const ipRange = signal.ipRange === null ? 0 : limits.ipRange;
  const author = sql`from author_counts where site_id = ${signal.siteId} and author_ref = ${limits.authorRef}`;
  const { rows } = await sql<Record<keyof Standing, number | string | null>>`select
      (select count(*) from (${copies} and author_key = ${signal.authorKey} and created_at >= ${dayAgo} limit 1) as s) as "sameAuthorCopy",
      ${limits.duplicateAuthors > 0
        ? sql`(select count(*) from (select distinct author_key from spam_signals where site_id = ${signal.siteId} and text_hash = ${signal.textHash} and created_at >= ${hourAgo} and author_key <> ${signal.authorKey} limit ${limits.duplicateAuthors}) as a)`
        : sql`0`} as "copyAuthors",
      ${bounded(sql`select 1 from spam_signals where site_id = ${signal.siteId} and ip_range = ${signal.ipRange} and created_at >= ${tenMinutesAgo}`, ipRange)} as "ipRange",
      ${bounded(sql`select 1 from spam_signals where site_id = ${signal.siteId} and thread_key = ${signal.threadKey} and created_at >= ${minuteAgo}`, limits.thread)} as "thread",
      ${bounded(sql`select 1 from spam_signals where site_id = ${signal.siteId} and created_at >= ${minuteAgo}`, limits.site)} as "site",
      (select published ${author}) as "published",
      (select removed + spam ${author}) as "removedOrSpam",
      (select published + pending + removed + spam ${author}) as "total"`.execute(db);
  const row = rows[0];
  return {
    sameAuthorCopy: Number(row.sameAuthorCopy) > 0,
    copyAuthors: Number(row.copyAuthors) + 1,
    ipRange: Number(row.ipRange),
    thread: Number(row.thread),
    site: Number(row.site),
    published: Number(row.published ?? 0),
    removedOrSpam: Number(row.removedOrSpam ?? 0),
    total: Number(row.total ?? 0),
  };
}

/** Keeps the comment's signal for the checks of later comments; now and then clears the expired ones. */
export async function recordSignal(db: Kysely<Database>, signal: Signal, createdAt: string): Promise<void> {
  await db
    .insertInto('spam_signals')
    .values({
      comment_id: signal.commentId,
      site_id: signal.siteId,
      thread_key: signal.threadKey,
      author_key: signal.authorKey,
      ip_range: signal.ipRange,
      text_hash: signal.textHash,
      created_at: createdAt,
    })
    .execute();
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
