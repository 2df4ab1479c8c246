import type { Insertable, Transaction } from 'kysely';
import type { Db } from '../db/connect.ts';
import type { Database, EventTable } from '../db/schema.ts';
import { preparedInsert } from '../db/prepared.ts';
import { newId } from '../ids.ts';
import type { Site } from '../sites/repository.ts';
import { mayDeliver, queueDelivery, queuedDelivery } from '../webhooks/outbox.ts';
import { nowIso } from '../clock.ts';
import { changesQueue, recordQueueChange } from '../live/queue-record.ts';
import { queuedMail } from '../mail/outbox.ts';
import { queuedNotificationJob } from '../notifications/jobs.ts';
import { mayAlert, queueAlerts } from '../alerts/outbox.ts';

export const EVENT_TYPES = [
  'comment.created',
  'comment.updated',
  'comment.deleted',
  'comment.flagged',
  'comment.approved',
  'comment.rejected',
  'moderation.action',
  'user.created',
  'user.banned',
  'subscription.changed',
  'import.completed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export interface DomainEvent {
  accountId: string;
  siteId: string | null;
  type: EventType;
  data: Record<string, unknown>;
}

const insertEvent = preparedInsert('events');

/**
 * Every state change calls this inside its own transaction, so the event commits or rolls back with
 * the change that caused it, and so does its webhook delivery (the transactional outbox). A caller
 * that has the event's site loaded passes it: no webhook lookup when the site takes no delivery of it.
 */
export async function recordEvent(trx: Transaction<Database>, event: DomainEvent, site?: Site): Promise<string> {
  const row = eventRow(event);
  const { id, created_at: createdAt } = row;
  await insertEvent(trx, row);
  await queueDelivery(trx, id, event, createdAt, site);
  await queueAlerts(trx, id, event, createdAt);
  await recordQueueChange(trx, id, event, createdAt);
  return id;
}

function eventRow(event: DomainEvent): Insertable<EventTable> & { id: string; created_at: string } {
  return { id: newId('evt'), account_id: event.accountId, site_id: event.siteId, type: event.type, data: JSON.stringify(event.data), created_at: nowIso() };
}

/**
 * The row of an event that queues nothing beside itself (no webhook delivery, chat alert or queue
 * change: most new comments' comment.created), for the statement that writes its change to insert
 * too (a new top-level comment's: see insertedFirst in comments/repository.ts); null when it does
 * queue something, and is recorded with recordEvent.
 */
export function eventRowAlone(trx: Transaction<Database>, event: DomainEvent, site: Site): Insertable<EventTable> | null {
  return mayDeliver(event, site) || mayAlert(trx, event) || changesQueue(event) ? null : eventRow(event);
}

/**
 * Runs a change that records events in one transaction. Once it has committed, and only then, a
 * webhook delivery, mail or notification fan-out it queued is announced on db.changes, so this process's worker sends it at once
 * instead of at its next poll.
 */
export async function withEvents<T>(db: Db, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  let queued = false;
  let mailed = false;
  let notifying = false;
  const result = await db.kysely.transaction().execute(async (trx) => {
    const value = await work(trx);
    queued = queuedDelivery(trx);
    mailed = queuedMail(trx);
    notifying = queuedNotificationJob(trx);
    return value;
  });
  if (queued) db.changes.deliveriesQueued();
  if (mailed) db.changes.mailsQueued();
  if (notifying) db.changes.notificationJobsQueued();
  return result;
}
