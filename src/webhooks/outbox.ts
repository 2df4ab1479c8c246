import type { Insertable, Transaction } from 'kysely';
import type { Database, WebhookDeliveryTable } from '../db/schema.ts';
import { newId } from '../ids.ts';
import { planAtLeast } from '../sites/plans.ts';
import type { Site } from '../sites/repository.ts';
import { WEBHOOK_PLAN } from './settings.ts';

/** The JSON body of a delivery (specification part 6.2), fixed when the event happens. */
export function deliveryBody(event: string, siteId: string, timestamp: string, data: unknown, test = false): string {
  return JSON.stringify({ event, site_id: siteId, timestamp, data, ...(test && { test: true }) });
}

/** What the outbox needs of a recorded event (events/record.ts records them and queues their delivery here). */
interface DeliverableEvent {
  siteId: string | null;
  type: string;
  data: Record<string, unknown>;
}

/**
 * The plan that decides whether an event is delivered. A subscription change is judged by the
 * better of the two plans, so the event announcing a downgrade still reaches the site; nothing after.
 */
function deciding(event: DeliverableEvent, plan: string): string[] {
  const previous = event.type === 'subscription.changed' ? event.data.previous_plan : undefined;
  return typeof previous === 'string' ? [plan, previous] : [plan];
}

/** Transactions that queued a delivery, so whoever commits them can say so (see withEvents). */
const queuedIn = new WeakSet<Transaction<Database>>();

export function queuedDelivery(trx: Transaction<Database>): boolean {
  return queuedIn.has(trx);
}

/** Whether a site with these settings takes deliveries of this event type at all (its plan aside). */
function subscribed(settings: Pick<Site, 'webhookUrl' | 'webhookEvents'>, type: string): boolean {
  return settings.webhookUrl !== null && settings.webhookEvents.includes(type);
}

/** Whether the event may be delivered: not when `loaded`, its site as the request read it, is not subscribed to it. */
export function mayDeliver(event: DeliverableEvent, loaded?: Site): boolean {
  return event.siteId !== null && !(loaded?.id === event.siteId && !subscribed(loaded, event.type));
}

/**
 * Queues the webhook delivery of an event, in the transaction that records it: the delivery exists
 * if and only if the change committed. Only a site subscribed to the event, with a URL, on the plan.
 * `loaded` is the event's site as the request read it: when it is not subscribed, there is nothing to
 * look up (a subscription saved after that read is as concurrent as a change racing this lookup).
 */
export async function queueDelivery(trx: Transaction<Database>, eventId: string, event: DeliverableEvent, createdAt: string, loaded?: Site): Promise<void> {
  if (event.siteId === null || !mayDeliver(event, loaded)) return;
  const site = await trx
    .selectFrom('sites')
    .innerJoin('accounts', 'accounts.id', 'sites.account_id')
    .select(['sites.webhook_url', 'sites.webhook_events', 'accounts.plan'])
    .where('sites.id', '=', event.siteId)
    .executeTakeFirst();
  if (!site || !subscribed({ webhookUrl: site.webhook_url, webhookEvents: JSON.parse(site.webhook_events) }, event.type)) return;
  if (!deciding(event, site.plan).some((plan) => planAtLeast(plan, WEBHOOK_PLAN))) return;
  await trx
    .insertInto('webhook_deliveries')
    .values({
      id: newId('del'),
      site_id: event.siteId,
      event_id: eventId,
      event: event.type,
      body: deliveryBody(event.type, event.siteId, createdAt, event.data),
      state: 'pending',
      attempt_count: 0,
      run_attempts: 0,
      is_test: 0,
      next_attempt_at: createdAt,
      lease_until: null,
      created_at: createdAt,
      alert_id: null,
    })
    .execute();
  queuedIn.add(trx);
}

/**
 * Queues deliveries another feature built (a site's chat alerts, src/alerts) in the change's
 * transaction: the same worker sends them once it commits, with the same retries and log.
 */
export async function queueDeliveries(trx: Transaction<Database>, rows: Insertable<WebhookDeliveryTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await trx.insertInto('webhook_deliveries').values(rows).execute();
  queuedIn.add(trx);
}
