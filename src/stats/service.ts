import { sql, type Kysely } from 'kysely';
import { nowIso } from '../clock.ts';
import { toCount } from '../db/dialect.ts';
import type { Database } from '../db/schema.ts';
import { countsOfSites } from '../moderation/counts.ts';
import type { Site } from '../sites/repository.ts';

export const DAYS = 90;
const TOP_THREADS = 10;
/** The webhook success rate is over the site's latest deliveries (read newest first from their index). */
export const WEBHOOK_WINDOW = 1_000;

const STATUSES = ['published', 'pending', 'removed', 'spam'] as const;
type DayCounts = Record<(typeof STATUSES)[number], number>;
const none = (): DayCounts => ({ published: 0, pending: 0, removed: 0, spam: 0 });

/** The last `DAYS` UTC days, oldest first, today last. */
function lastDays(today: string): string[] {
  const [year, month, day] = today.split('-').map(Number);
  return Array.from({ length: DAYS }, (_, i) => new Date(Date.UTC(year, month - 1, day - (DAYS - 1 - i))).toISOString().slice(0, 10));
}

const byStatus = sql.raw(STATUSES.map((status) => `sum(case when status = '${status}' then 1 else 0 end) as ${status}`).join(', '));

/**
 * Comments of the site written in [from, to) by day and status, from the (site_id, created_at, …,
 * status) index alone, one pass summing each status (a GROUP BY status sorted every row).
 */
async function countDays(db: Kysely<Database>, siteId: string, from: string, to: string | null) {
  const { rows } = await sql<{ day: string } & Record<(typeof STATUSES)[number], number | string | null>>`
    select substr(created_at, 1, 10) as day, ${byStatus} from comments
    where site_id = ${siteId} and created_at >= ${from} ${to === null ? sql`` : sql`and created_at < ${to}`}
    group by substr(created_at, 1, 10)`.execute(db);
  return new Map(rows.map((row) => [row.day, Object.fromEntries(STATUSES.map((status) => [status, toCount(row[status])])) as DayCounts]));
}

/**
 * Comments per day by status. Finished days are counted once and kept (site_daily_counts, which
 * triggers keep exact from then on); a request counts only the days not kept yet (all 89 the first
 * time, one after midnight) and today.
 */
async function commentsPerDay(db: Kysely<Database>, site: Site) {
  const today = nowIso().slice(0, 10);
  const days = lastDays(today);
  const kept = new Map(
    (await db.selectFrom('site_daily_counts').selectAll().where('site_id', '=', site.id).where('day', '>=', days[0]).where('day', '<', today).execute()).map(
      (row) => [row.day, { published: row.published, pending: row.pending, removed: row.removed, spam: row.spam }] as const,
    ),
  );
  const missing = days.slice(0, -1).filter((day) => !kept.has(day));
  if (missing.length > 0) {
    await db.transaction().execute(async (trx) => {
      const counted = await countDays(trx, site.id, missing[0], today);
      for (const day of missing) {
        const counts = counted.get(day) ?? none();
        kept.set(day, counts);
        await trx.insertInto('site_daily_counts').values({ site_id: site.id, day, ...counts }).onConflict((oc) => oc.columns(['site_id', 'day']).doNothing()).execute();
      }
    });
  }
  const live = await countDays(db, site.id, today, null);
  return days.map((day) => {
    const counts = day === today ? (live.get(day) ?? none()) : kept.get(day)!;
    return { day, published: Number(counts.published), pending: Number(counts.pending), removed: Number(counts.removed), spam: Number(counts.spam) };
  });
}

/** From the queue's counts kept per thread (migration 0024): counting the comments walked every pending one. */
async function pendingCount(db: Kysely<Database>, site: Site): Promise<number> {
  return (await countsOfSites(db, [site.id])).pending;
}

async function topThreads(db: Kysely<Database>, site: Site) {
  const rows = await db
    .selectFrom('threads')
    .select(['id', 'url_key', 'title', 'all_total'])
    .where('site_id', '=', site.id)
    .orderBy('all_total', 'desc')
    .orderBy('id')
    .limit(TOP_THREADS)
    .execute();
  return rows.map((row) => ({ id: row.id, url: row.url_key, title: row.title, top_level_comments: Number(row.all_total) }));
}

async function webhookSuccess(db: Kysely<Database>, site: Site) {
  const latest = db
    .selectFrom('webhook_deliveries')
    .select('state')
    .where('site_id', '=', site.id)
    .where('is_test', '=', 0)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(WEBHOOK_WINDOW);
  const rows = await db
    .selectFrom(latest.as('d'))
    .select((eb) => ['d.state', eb.fn.countAll<number>().as('n')])
    .groupBy('d.state')
    .execute();
  const count = (state: string) => toCount(rows.find((row) => row.state === state)?.n);
  const [succeeded, failed, pending] = [count('succeeded'), count('failed'), count('pending')];
  return { deliveries: succeeded + failed + pending, succeeded, failed, pending, success_rate: succeeded + failed === 0 ? null : succeeded / (succeeded + failed) };
}

/** A site's figures for its dashboard, each from an index range that stays short at 1,000,000 comments. */
export async function siteStats(db: Kysely<Database>, site: Site) {
  const [days, pending, threads, webhooks] = await Promise.all([commentsPerDay(db, site), pendingCount(db, site), topThreads(db, site), webhookSuccess(db, site)]);
  return { site_id: site.id, days, pending, top_threads: threads, webhooks };
}
