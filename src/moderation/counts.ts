import { sql } from 'kysely';
import type { Caller } from '../auth/caller.ts';
import type { Db } from '../db/connect.ts';
import { managedSite, sitesManagedBy } from '../sites/repository.ts';

export interface QueueCounts {
  pending: number;
  flagged: number;
  spam: number;
  removed: number;
}

/**
 * How many comments wait in each tab of the queue, over one site or every site the caller
 * moderates. One statement; both branches repeat the conditions of the queue's partial indexes
 * (comments_site_unpublished, comments_site_flagged), so they count from those small indexes and
 * never read the published comments. "all" is left out: counting it would read every comment.
 */
export async function queueCounts(db: Db, caller: Caller, siteId: string | undefined): Promise<QueueCounts> {
  const sites = siteId !== undefined ? [await managedSite(db.kysely, caller, siteId, 'moderate')] : await sitesManagedBy(db.kysely, caller, 'moderate');
  const counts: QueueCounts = { pending: 0, flagged: 0, spam: 0, removed: 0 };
  if (sites.length === 0) return counts;
  const ids = sql.join(sites.map((site) => site.id));
  const { rows } = await sql<{ status: string; n: number | string }>`
    select c.status as status, count(*) as n from comments c
      where c.site_id in (${ids}) and c.status <> 'published' and c.is_deleted = 0 group by c.status
    union all
    select 'flagged' as status, count(*) as n from comments c
      where c.site_id in (${ids}) and c.flag_count > 0 and c.status = 'published' and c.is_deleted = 0`.execute(db.kysely);
  for (const row of rows) if (row.status in counts) counts[row.status as keyof QueueCounts] = Number(row.n);
  return counts;
}
