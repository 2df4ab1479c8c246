import type { Insertable, Kysely } from 'kysely';
import { nowIso } from '../clock.ts';
import type { Database, NotificationJobTable } from '../db/schema.ts';
import { newId } from '../ids.ts';

/** What a fan-out job tells of: a comment the public now sees, or a moderator's decision on a reader's comment. */
export type NotificationJob =
  | { kind: 'published'; siteId: string; commentId: string }
  | { kind: 'decision'; siteId: string; commentId: string; data: { action: string; reason: string | null; log_id: string } };

const queuedIn = new WeakSet<Kysely<Database>>();

/** Whether the transaction queued a fan-out: once it has committed, this process's worker is told at once (events/record.ts withEvents). */
export function queuedNotificationJob(trx: Kysely<Database>): boolean {
  return queuedIn.has(trx);
}

/**
 * Queues a fan-out in the transaction of its cause: one row, however many readers follow the thread,
 * so a comment costs the same with a thousand followers. The notification worker does the rest
 * after the commit.
 */
export async function queueNotificationJob(trx: Kysely<Database>, job: NotificationJob): Promise<void> {
  await trx.insertInto('notification_jobs').values(notificationJobRow(trx, job)).execute();
}

/**
 * The row of a fan-out queued in `trx`, for a statement that writes it with other rows (a new
 * top-level comment's: see insertedFirst in comments/repository.ts).
 */
export function notificationJobRow(trx: Kysely<Database>, job: NotificationJob): Insertable<NotificationJobTable> {
  const now = nowIso();
  queuedIn.add(trx);
  return {
    id: newId('njb'),
    site_id: job.siteId,
    kind: job.kind,
    comment_id: job.commentId,
    data: JSON.stringify(job.kind === 'decision' ? job.data : {}),
    state: 'pending',
    cursor: null,
    next_attempt_at: now,
    lease_until: null,
    created_at: now,
  };
}
