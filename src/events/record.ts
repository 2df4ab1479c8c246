import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import { newId } from '../ids.ts';

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
 * the change that caused it (the transactional outbox that webhook delivery reads).
 */
export async function recordEvent(trx: Transaction<Database>, event: DomainEvent): Promise<string> {
  const id = newId('evt');
  await trx
    .insertInto('events')
    .values({
      id,
      account_id: event.accountId,
      site_id: event.siteId,
      type: event.type,
      data: JSON.stringify(event.data),
      created_at: new Date().toISOString(),
    })
    .execute();
  return id;
}
