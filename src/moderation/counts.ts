import type { Kysely } from 'kysely';
import type { Caller } from '../auth/caller.ts';
import type { Db } from '../db/connect.ts';
import { preparedQuery } from '../db/prepared.ts';
import type { Database } from '../db/schema.ts';
import { managedSite, sitesManagedBy } from '../sites/repository.ts';

const TABS = ['pending', 'flagged', 'spam', 'removed'] as const;

export interface QueueCounts {
  pending: number;
  flagged: number;
  spam: number;
  removed: number;
}

type Sums = Record<(typeof TABS)[number], number | string>;

/** The sums of the sites' kept counts, compiled once per number of sites. */
const sumsOfSites = preparedQuery((db, _sites: number, ...siteIds: string[]) =>
  db
    .selectFrom('thread_queue_counts')
    .select((eb) => TABS.map((tab) => eb.fn.coalesce(eb.fn.sum<number | string>(tab), eb.lit(0)).as(tab)))
    .where('site_id', 'in', siteIds)
    .$castTo<Sums>()
    .compile(),
);

/**
 * How many comments wait in each tab of the queue, over one site or every site the caller
 * moderates: the sums of the counts kept per thread (migration 0024), which follow the queue's
 * status filters, so a queue of any length costs one row per thread with comments in a tab. "all"
 * is left out: counting it would read every comment.
 */
export async function queueCounts(db: Db, caller: Caller, siteId: string | undefined): Promise<QueueCounts> {
  const sites = siteId !== undefined ? [await managedSite(db.kysely, caller, siteId, 'moderate')] : await sitesManagedBy(db.kysely, caller, 'moderate');
  return countsOfSites(db.kysely, sites.map((site) => site.id));
}

/** The tabs' counts summed over these sites, which the caller has checked may be read. */
export async function countsOfSites(db: Kysely<Database>, siteIds: string[]): Promise<QueueCounts> {
  if (siteIds.length === 0) return { pending: 0, flagged: 0, spam: 0, removed: 0 };
  const [sums] = await sumsOfSites(db, siteIds.length, ...siteIds);
  return { pending: Number(sums.pending), flagged: Number(sums.flagged), spam: Number(sums.spam), removed: Number(sums.removed) };
}
