import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import { nowIso } from '../clock.ts';
import type { MailConfig } from '../config.ts';
import type { Database, MailOutboxTable, NotificationTable } from '../db/schema.ts';
import { queueMails, type QueuedMail } from './outbox.ts';
import { addressRows, readerAddresses } from './reader-addresses.ts';

/** At most one mail about a followed page per reader in this time; its new comments meanwhile roll into the next one, as replies do. */
export const FOLLOWED_MAIL_INTERVAL_MS = 10 * 60_000;

/** What a followed page's or a decision's mail row holds: the notification it tells of, and the address's row (for its links). */
export type NotificationMailData = {
  notification_id: string;
  user_id: string;
  address_id: string;
};

type Made = Selectable<NotificationTable>;

/** Statements that name rows by id take them in slices (SQLite takes at most 32,766 parameters). */
const PER_STATEMENT = 1_000;

function slices<T>(items: T[]): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += PER_STATEMENT) result.push(items.slice(start, start + PER_STATEMENT));
  return result;
}

/** When the last followed-page mail of each of these threads went to each of these addresses, by `recipient thread`. */
async function lastFollowedMails(trx: Transaction<Database>, recipients: string[], threadIds: string[]): Promise<Map<string, string>> {
  const last = new Map<string, string>();
  for (const slice of slices(recipients)) {
    const rows = await trx
      .selectFrom('mail_outbox')
      .select(['recipient', 'thread_id', (eb) => eb.fn.max('sent_at').as('last')])
      .where('kind', '=', 'followed')
      .where('state', '=', 'sent')
      .where('recipient', 'in', slice)
      .where('thread_id', 'in', threadIds)
      .groupBy(['recipient', 'thread_id'])
      .execute();
    for (const row of rows) if (row.last) last.set(`${row.recipient} ${row.thread_id}`, row.last as string);
  }
  return last;
}

/**
 * The mails of notifications the worker just made, in its transaction. Readers who chose `instant`
 * get a mail for a followed page's new comment (rolled up per page, as reply mails are) and for a
 * moderator's decision on their comment; reply and mention mails are queued with their comment, as
 * before. Those notifications, and every one of readers who chose no mail, are marked mailed: no
 * digest tells of them later (a reader who turns digests on later gets those of what comes after).
 * Readers who chose a digest keep theirs unmailed for it.
 */
export async function queueNotificationMails(trx: Transaction<Database>, mail: MailConfig | null, made: Made[]): Promise<void> {
  if (mail === null || made.length === 0) return;
  const bySite = new Map<string, Made[]>();
  for (const row of made) bySite.set(row.site_id, [...(bySite.get(row.site_id) ?? []), row]);
  for (const [siteId, rows] of bySite) await queueSiteMails(trx, siteId, rows);
}

async function queueSiteMails(trx: Transaction<Database>, siteId: string, made: Made[]): Promise<void> {
  const now = nowIso();
  const userIds = [...new Set(made.map((row) => row.user_id))];
  const users: Array<{ id: string; email: string | null; mail_frequency: string; erased_at: string | null }> = [];
  for (const slice of slices(userIds)) {
    users.push(...(await trx.selectFrom('site_users').select(['id', 'email', 'mail_frequency', 'erased_at']).where('site_id', '=', siteId).where('id', 'in', slice).execute()));
  }
  const digested = new Set(users.filter((user) => user.erased_at === null && (user.mail_frequency === 'daily' || user.mail_frequency === 'weekly')).map((user) => user.id));
  const instant = users.filter((user) => user.erased_at === null && user.mail_frequency === 'instant');
  const toMail = made.filter((row) => row.kind === 'followed_thread' || row.kind === 'moderation');
  const wanting = new Set(toMail.map((row) => row.user_id));
  const readers = await readerAddresses(trx, siteId, instant.filter((user) => wanting.has(user.id)));
  const addresses = await addressRows(trx, siteId, readers, now);
  const emailOf = new Map(readers.map((reader) => [reader.userId, reader.email]));
  const last = await lastFollowedMails(trx, [...new Set(readers.map((reader) => reader.email))], [...new Set(toMail.map((row) => row.thread_id))]);
  const mails: QueuedMail[] = [];
  for (const row of toMail) {
    const email = emailOf.get(row.user_id);
    const address = addresses.get(row.user_id);
    if (email === undefined || address === undefined || address.unsubscribedAt !== null) continue;
    const data: NotificationMailData = { notification_id: row.id, user_id: row.user_id, address_id: address.id };
    const followed = row.kind === 'followed_thread';
    const lastSent = followed ? last.get(`${email} ${row.thread_id}`) : undefined;
    mails.push({
      kind: followed ? 'followed' : 'notice',
      cause: row.cause,
      reader: row.user_id,
      recipient: email,
      siteId,
      threadId: row.thread_id,
      data,
      dueAt: lastSent === undefined ? undefined : new Date(Date.parse(lastSent) + FOLLOWED_MAIL_INTERVAL_MS).toISOString(),
    });
  }
  await queueMails(trx, mails);
  const settled = made.filter((row) => !digested.has(row.user_id)).map((row) => row.id);
  for (const slice of slices(settled)) await trx.updateTable('notifications').set({ mailed_at: now }).where('id', 'in', slice).execute();
}

/**
 * Followed-page and decision mails still to send, checked again when they go: the notification is
 * still there (not erased), its reader is still mailed per event, the address has not stopped all
 * mail, and, for a followed page, the reader still follows it. The others are dropped.
 */
export async function stillNotified(db: Kysely<Database>, rows: Array<Selectable<MailOutboxTable>>): Promise<Array<Selectable<MailOutboxTable>>> {
  const data = rows.map((row) => JSON.parse(row.data) as NotificationMailData);
  const wanted = new Set<string>();
  for (const slice of slices([...new Set(data.map((d) => d.notification_id))])) {
    const found = await db
      .selectFrom('notifications as n')
      .innerJoin('site_users as u', 'u.id', 'n.user_id')
      .select('n.id')
      .where('n.id', 'in', slice)
      .where('u.erased_at', 'is', null)
      .where('u.mail_frequency', '=', 'instant')
      .where((eb) =>
        eb.or([
          eb('n.kind', '!=', 'followed_thread'),
          eb.exists(eb.selectFrom('follows as f').select(sql.lit(1).as('one')).whereRef('f.user_id', '=', 'n.user_id').whereRef('f.thread_id', '=', 'n.thread_id')),
        ]),
      )
      .execute();
    for (const row of found) wanted.add(row.id);
  }
  const open = new Set(
    (await db.selectFrom('mail_addresses').select('id').where('id', 'in', [...new Set(data.map((d) => d.address_id))]).where('unsubscribed_at', 'is', null).execute()).map((address) => address.id),
  );
  return rows.filter((_, i) => wanted.has(data[i].notification_id) && open.has(data[i].address_id));
}
