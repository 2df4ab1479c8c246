import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import { newId } from '../ids.ts';
import type { Site } from '../sites/repository.ts';
import { queueDelivery } from '../webhooks/outbox.ts';

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
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export interface DomainEvent {
  accountId: string;
  siteId: string | null;
  type: EventType;
  data: Record<string, unknown>;
}

/**
 * Every state change calls this inside its own transaction, so the event commits or rolls back with
 * the change that caused it, and so does its webhook delivery (the transactional outbox). A caller
 * that has the event's site loaded passes it: no webhook lookup when the site takes no delivery of it.
 */
export async function recordEvent(trx: Transaction<Database>, event: DomainEvent, site?: Site): Promise<string> {
  const id = newId('evt');
  const createdAt = new Date().toISOString();
  await trx
    .insertInto('events')
    .values({
      id,
      account_id: event.accountId,
      site_id: event.siteId,
      type: event.type,
      data: JSON.stringify(event.data),
      created_at: createdAt,
    })
    .execute();
  await queueDelivery(trx, id, event, createdAt, site);
  return id;
}
