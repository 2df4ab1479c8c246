import { sql, type ExpressionBuilder, type Kysely, type Selectable } from 'kysely';
import type { Db } from '../db/connect.ts';
import { skipLocked, toCount } from '../db/dialect.ts';
import type { Database, WebhookAttemptTable, WebhookDeliveryTable } from '../db/schema.ts';
import { signedWebhook, type AttemptRecord, type DeliveryRequest } from './send.ts';

export type DeliveryRow = Selectable<WebhookDeliveryTable>;
export type AttemptRow = Selectable<WebhookAttemptTable>;
export const DELIVERY_STATES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/**
 * Where deliveries go, as it stands now (read at every attempt): the site's webhook (alertId null) or
 * one of its chat alerts. `request` is null when there is nowhere to deliver any more; each attempt
 * then fails with `missing`.
 */
export interface Target {
  siteId: string;
  alertId: string | null;
  /** The receiver's URL, whose host the worker's per-host caps count; null with no receiver. */
  url: string | null;
  request: ((delivery: DeliveryRow) => DeliveryRequest) | null;
  missing: string;
}

/** The site's webhook as a target: signed POSTs to its URL, while it has one. */
export function webhookTarget(siteId: string, url: string | null, secret: string | null): Target {
  return {
    siteId,
    alertId: null,
    url,
    request: url === null || secret === null ? null : (delivery) => signedWebhook(url, secret, { deliveryId: delivery.id, event: delivery.event, body: delivery.body }),
    missing: 'webhook_disabled',
  };
}

function claimable(now: string) {
  return (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) =>
    eb.and([
      eb('webhook_deliveries.state', '=', 'pending'),
      eb('webhook_deliveries.next_attempt_at', '<=', now),
      eb.or([eb('webhook_deliveries.lease_until', 'is', null), eb('webhook_deliveries.lease_until', '<', now)]),
    ]);
}

/**
 * Sites with a delivery due that no one holds, the one waiting longest first. The sites with pending
 * deliveries are found by skipping through webhook_deliveries_site_due, one seek per site however
 * long its queue, and each is checked at the head of its due range only: a site with thousands of
 * deliveries behind a hanging receiver costs a poll what a site with one does. Chat alerts' deliveries
 * are their own targets (src/alerts/due.ts), left out here.
 */
export async function dueSites(db: Kysely<Database>, now: string): Promise<Target[]> {
  const { rows } = await sql<{ id: string; webhook_url: string | null; webhook_secret: string | null }>`
    with recursive pending_sites (site_id) as (
      select min(site_id) from webhook_deliveries where state = 'pending'
      union all
      select (select min(d.site_id) from webhook_deliveries d where d.state = 'pending' and d.site_id > p.site_id)
      from pending_sites p where p.site_id is not null
    )
    select id, webhook_url, webhook_secret from (
      select s.id, s.webhook_url, s.webhook_secret,
        (select d.next_attempt_at from webhook_deliveries d
          where d.state = 'pending' and d.site_id = p.site_id and d.alert_id is null and d.next_attempt_at <= ${now} and (d.lease_until is null or d.lease_until < ${now})
          order by d.next_attempt_at limit 1) as oldest_due
      from pending_sites p join sites s on s.id = p.site_id
    ) due
    where oldest_due is not null
    order by oldest_due`.execute(db);
  return rows.map((r) => webhookTarget(r.id, r.webhook_url, r.webhook_secret));
}

/** Up to `limit` of a target's due deliveries that no one holds, oldest first. */
export async function dueOf(db: Kysely<Database>, target: Target, now: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('site_id', '=', target.siteId)
    .where('alert_id', target.alertId === null ? 'is' : '=', target.alertId)
    .where(claimable(now))
    .orderBy('next_attempt_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Takes a lease on those of `ids` that are still claimable; what comes back is this worker's alone.
 * An instance that dies holding a lease loses it when `leaseUntil` passes. `state` is tested as an
 * expression here: compared as a column, SQLite looked the rows up by walking the whole due range of
 * webhook_deliveries_due (2.6 ms a claim with 4,000 due) instead of by id.
 */
export function claim(db: Db, ids: string[], now: string, leaseUntil: string): Promise<DeliveryRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  const stillClaimable = (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) =>
    eb.and([
      eb('webhook_deliveries.id', 'in', ids),
      eb(sql<string>`${sql.ref('webhook_deliveries.state')} || ''`, '=', 'pending'),
      eb('webhook_deliveries.next_attempt_at', '<=', now),
      eb.or([eb('webhook_deliveries.lease_until', 'is', null), eb('webhook_deliveries.lease_until', '<', now)]),
    ]);
  return db.kysely
    .updateTable('webhook_deliveries')
    .set({ lease_until: leaseUntil })
    .where('id', 'in', (eb) => skipLocked(db.dialect, eb.selectFrom('webhook_deliveries').select('id').where(stillClaimable)))
    .where(stillClaimable)
    .returningAll()
    .execute();
}

export interface NextStep {
  state: DeliveryState;
  next_attempt_at: string | null;
}

/**
 * Writes an attempt and the delivery's next step together, and lets the lease go. The counters are
 * the claimed row's plus one: no one else writes a delivery while its lease is held.
 */
export async function recordAttempt(db: Kysely<Database>, delivery: DeliveryRow, attempt: AttemptRecord, next: NextStep) {
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('webhook_attempts').values({ delivery_id: delivery.id, number: delivery.attempt_count + 1, ...attempt }).execute();
    await trx
      .updateTable('webhook_deliveries')
      .set({ ...next, attempt_count: delivery.attempt_count + 1, run_attempts: delivery.run_attempts + 1, lease_until: null })
      .where('id', '=', delivery.id)
      .execute();
  });
}

export function insertDelivery(db: Kysely<Database>, row: DeliveryRow): Promise<unknown> {
  return db.insertInto('webhook_deliveries').values(row).execute();
}

/** A delivery of the site's webhook (alertId null) or of one of its chat alerts. */
export function findDelivery(db: Kysely<Database>, siteId: string, alertId: string | null, id: string): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('site_id', '=', siteId)
    .where('alert_id', alertId === null ? 'is' : '=', alertId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Queues a finished delivery again with a fresh retry schedule; false when it is still pending. */
export async function requeue(db: Kysely<Database>, siteId: string, id: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ state: 'pending', run_attempts: 0, next_attempt_at: now, lease_until: null })
    .where('site_id', '=', siteId)
    .where('id', '=', id)
    .where('state', '!=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export interface DeliveryFilter {
  /** The chat alert whose deliveries to list; null: the site's webhook deliveries. */
  alertId: string | null;
  page: number;
  limit: number;
  event?: string;
  state?: DeliveryState;
}

/** A page of a site's deliveries, newest first, with the attempts of that page in one more query. */
export async function listDeliveries(db: Kysely<Database>, siteId: string, filter: DeliveryFilter) {
  let base = db
    .selectFrom('webhook_deliveries')
    .where('site_id', '=', siteId)
    .where('alert_id', filter.alertId === null ? 'is' : '=', filter.alertId);
  if (filter.event) base = base.where('event', '=', filter.event);
  if (filter.state) base = base.where('state', '=', filter.state);
  const [rows, count] = await Promise.all([
    base
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(filter.limit)
      .offset((filter.page - 1) * filter.limit)
      .execute(),
    base.select((eb) => eb.fn.countAll().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, attempts: await attemptsOf(db, rows.map((r) => r.id)), total: toCount(count.total as number) };
}

export async function attemptsOf(db: Kysely<Database>, deliveryIds: string[]): Promise<Map<string, AttemptRow[]>> {
  const byDelivery = new Map<string, AttemptRow[]>();
  if (deliveryIds.length === 0) return byDelivery;
  const rows = await db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('delivery_id').orderBy('number').execute();
  for (const row of rows) {
    const list = byDelivery.get(row.delivery_id);
    if (list) list.push(row);
    else byDelivery.set(row.delivery_id, [row]);
  }
  return byDelivery;
}
