import type { Kysely, Selectable, Transaction } from 'kysely';
import { nowIso } from '../clock.ts';
import type { CommentRow } from '../comments/view.ts';
import type { MailConfig } from '../config.ts';
import type { Database, MailOutboxTable } from '../db/schema.ts';
import type { Mention } from '../formatting/render.ts';
import { queueMails, type QueuedMail } from './outbox.ts';
import { addressRows, readerAddresses } from './reader-addresses.ts';
import { lastThreadMailAt } from './readers.ts';

/** At most one mention mail per address and thread in this time; mentions meanwhile roll into the next one, as replies do. */
export const MENTION_MAIL_INTERVAL_MS = 10 * 60_000;

/**
 * At most this many mention mails to one address from one site a day. Anyone may mention anyone
 * who wrote on the site, on as many pages as they like: past it, a reader is still mentioned, but
 * not mailed.
 */
export const MENTION_MAILS_PER_DAY = 20;
const DAY_MS = 24 * 3600_000;

/** What a mention mail's row holds. */
export type MentionMailData = {
  comment_id: string;
  user_id: string;
  address_id: string;
};

/** The users a comment's `mentions` column names (formatting/mentions.ts reads them from a source instead). */
function mentionedUsers(mentions: string): string[] {
  return (JSON.parse(mentions) as Mention[]).map((mention) => mention.user_id);
}

/** The readers of `userIds` who are not erased, keep mention mail on and are mailed per event, with their addresses. */
async function mentionedReaders(trx: Transaction<Database>, siteId: string, userIds: string[]) {
  const users = await trx
    .selectFrom('site_users')
    .select(['id', 'email'])
    .where('site_id', '=', siteId)
    .where('id', 'in', userIds)
    .where('erased_at', 'is', null)
    .where('mention_mail', '=', 1)
    .where('mail_frequency', '=', 'instant')
    .execute();
  return readerAddresses(trx, siteId, users);
}

/**
 * A comment the public now sees (posted published, approved, unhidden, or edited while public):
 * each reader it mentions gets a mail, queued in that change's transaction, unless they wrote it,
 * were mentioned already in `before` (the comment before an edit), turned mention mail off, have no
 * address, or their address stopped all mail. Once per comment and reader, whatever happens after
 * (the idempotency key is the comment and the reader). Due no sooner than MENTION_MAIL_INTERVAL_MS
 * after the last mention mail of the thread to that address; the worker rolls them into one.
 */
export async function queueMentionMails(trx: Transaction<Database>, mail: MailConfig | null, comment: CommentRow, before?: Pick<CommentRow, 'mentions'>): Promise<void> {
  if (mail === null) return;
  const earlier = new Set(before ? mentionedUsers(before.mentions) : []);
  const userIds = mentionedUsers(comment.mentions).filter((id) => !earlier.has(id) && id !== comment.author_ref);
  if (userIds.length === 0) return;
  const readers = await mentionedReaders(trx, comment.site_id, userIds);
  if (readers.length === 0) return;
  const now = nowIso();
  const addresses = await addressRows(trx, comment.site_id, readers, now);
  const mails: QueuedMail[] = [];
  for (const reader of readers) {
    const address = addresses.get(reader.userId)!;
    if (address.unsubscribedAt !== null) continue;
    if ((await mentionMailsSince(trx, comment.site_id, reader.email, new Date(Date.parse(now) - DAY_MS).toISOString())) >= MENTION_MAILS_PER_DAY) continue;
    const last = await lastThreadMailAt(trx, 'mention', reader.email, comment.thread_id);
    const data: MentionMailData = { comment_id: comment.id, user_id: reader.userId, address_id: address.id };
    mails.push({
      kind: 'mention',
      cause: comment.id,
      reader: reader.userId,
      recipient: reader.email,
      siteId: comment.site_id,
      threadId: comment.thread_id,
      data,
      dueAt: last === null ? undefined : new Date(Date.parse(last) + MENTION_MAIL_INTERVAL_MS).toISOString(),
    });
  }
  await queueMails(trx, mails);
}

/** The mention mails queued to an address from a site since a time. */
async function mentionMailsSince(trx: Transaction<Database>, siteId: string, recipient: string, since: string): Promise<number> {
  const row = await trx
    .selectFrom('mail_outbox')
    .select((eb) => eb.fn.countAll<number>().as('mails'))
    .where('recipient', '=', recipient)
    .where('kind', '=', 'mention')
    .where('site_id', '=', siteId)
    .where('created_at', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.mails);
}

/**
 * Mention mails still to send, checked again when they go: the comment is still public and still
 * mentions the reader (an edit may have taken the mention out), who is not erased and keeps mention
 * mail on, at an address that has not stopped all mail since. The others are dropped.
 */
export async function stillMentioned(db: Kysely<Database>, rows: Array<Selectable<MailOutboxTable>>): Promise<Array<Selectable<MailOutboxTable>>> {
  const data = rows.map((row) => JSON.parse(row.data) as MentionMailData);
  const unique = (values: string[]) => [...new Set(values)];
  const comments = await db
    .selectFrom('comments')
    .select(['id', 'mentions'])
    .where('id', 'in', unique(data.map((d) => d.comment_id)))
    .where('status', '=', 'published')
    .where('moderation_status', 'is', null)
    .where('is_deleted', '=', 0)
    .execute();
  const users = await db
    .selectFrom('site_users')
    .select('id')
    .where('id', 'in', unique(data.map((d) => d.user_id)))
    .where('erased_at', 'is', null)
    .where('mention_mail', '=', 1)
    .where('mail_frequency', '=', 'instant')
    .execute();
  const addresses = await db.selectFrom('mail_addresses').select('id').where('id', 'in', unique(data.map((d) => d.address_id))).where('unsubscribed_at', 'is', null).execute();
  const mentioned = new Map(comments.map((comment) => [comment.id, new Set(mentionedUsers(comment.mentions))]));
  const wanting = new Set(users.map((user) => user.id));
  const open = new Set(addresses.map((address) => address.id));
  return rows.filter((_, i) => mentioned.get(data[i].comment_id)?.has(data[i].user_id) && wanting.has(data[i].user_id) && open.has(data[i].address_id));
}
