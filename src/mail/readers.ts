import type { Locale } from '../i18n/locales.ts';
import { sql, type ExpressionBuilder, type Kysely, type Transaction } from 'kysely';
import { hashSecret } from '../auth/secrets.ts';
import type { Caller } from '../auth/caller.ts';
import { nowIso } from '../clock.ts';
import type { CommentRow } from '../comments/view.ts';
import type { MailConfig } from '../config.ts';
import { preparedInsert, preparedQuery } from '../db/prepared.ts';
import type { CommentTable, Database } from '../db/schema.ts';
import { AppError, invalid } from '../errors.ts';
import { newId } from '../ids.ts';
import { clientKey } from '../ratelimits/client-key.ts';
import type { ConfirmMailLimiter } from '../ratelimits/confirm-mails.ts';
import type { Site } from '../sites/repository.ts';
import { normaliseEmail } from '../staff/repository.ts';
import { CONFIRM_LIFETIME_MS, confirmUrl, newConfirmToken, newLinkKey, validSignature, type UnsubscribeTarget } from './links.ts';
import { queueMail, type MailKind } from './outbox.ts';

/** At most one reply mail per recipient and thread in this time; replies meanwhile roll into the next one. */
export const REPLY_MAIL_INTERVAL_MS = 10 * 60_000;

/** What POST /v1/comments takes for mail. */
export interface ReplyMailWish {
  notify_replies?: boolean;
  email?: string;
  /** The language of the request (the widget's): the address's mails speak it. */
  language?: Locale | null;
}

/** A session's user (their address and default) and the site's row for an address, as one statement reads them. */
interface UserAndAddress {
  userEmail: string | null;
  userNotifies: number | null;
  userLanguage: string | null;
  id: string | null;
  language: string | null;
  email: string | null;
  confirmedAt: string | null;
  confirmExpiresAt: string | null;
  unsubscribedAt: string | null;
}

/**
 * Both in one statement, compiled once: every comment that asks for replies reads them, and a user
 * who names their address (as the widget does) needs no second read. `userId` null reads no user,
 * `email` null no address.
 */
const userAndAddress = preparedQuery((db, _shape: null, userId: string | null, siteId: string, email: string | null) =>
  sql<UserAndAddress>`select u.email as "userEmail", u.notify_replies as "userNotifies", u.language as "userLanguage", a.id as "id", a.email as "email", a.language as "language",
      a.confirmed_at as "confirmedAt", a.confirm_expires_at as "confirmExpiresAt", a.unsubscribed_at as "unsubscribedAt"
    from (select 1 as one) as o
    left join site_users as u on u.id = ${userId}
    left join mail_addresses as a on a.site_id = ${siteId} and a.email = ${email}`.compile(db),
);

type Address = { id: string; email: string; language: string | null; confirmedAt: string | null; confirmExpiresAt: string | null; unsubscribedAt: string | null };

/** The site's row for an address, made on its first use (another request may make it at the same moment). */
async function keptAddress(trx: Transaction<Database>, siteId: string, email: string, userId: string | null, verified: boolean, now: string, found: UserAndAddress, language: Locale | null): Promise<Address> {
  if (found.id !== null) return found as Address;
  return madeAddress(trx, siteId, email, userId, verified, now, language);
}

/** Makes the site's row for an address that has none yet (or that another request makes at the same moment). */
export async function madeAddress(trx: Transaction<Database>, siteId: string, email: string, userId: string | null, verified: boolean, now: string, language: Locale | null = null): Promise<Address> {
  await trx
    .insertInto('mail_addresses')
    .values({
      id: newId('mad'),
      site_id: siteId,
      email,
      user_id: userId,
      link_key: newLinkKey(),
      confirmed_at: verified ? now : null,
      confirm_token_hash: null,
      confirm_expires_at: null,
      unsubscribed_at: null,
      language,
      created_at: now,
    })
    .onConflict((oc) => oc.columns(['site_id', 'email']).doNothing())
    .execute();
  const [made] = await userAndAddress(trx, null, null, siteId, email);
  return made as Address;
}

const insertSubscription = preparedInsert('mail_subscriptions');

/**
 * Reply mails are a reader's own wish: an API key's caller is the site's backend, which could name
 * anyone's address (and Parley would mail it from the operator's address). Refused before the site
 * is looked up, so a key learns nothing of other tenants' sites either.
 */
export function refuseKeyMailWish(caller: Caller, wish: ReplyMailWish): void {
  if (caller.kind === 'key' && (wish.email !== undefined || wish.notify_replies === true)) {
    throw new AppError('forbidden', 'Reply mails are asked for by a reader (a guest or a reader session), not with an API key: leave out email and notify_replies');
  }
}

/**
 * "Email me replies" on a new comment, in its transaction. Double opt-in per subscription: replies
 * are mailed only for a confirmed subscription, so an address confirmed once cannot be subscribed
 * to someone else's comment. A subscription the address owner's own session makes (the address an
 * SSO token gave the user) is confirmed at once, and lifts the address's "stop all mail": the owner
 * acted. Any other gets a confirmation link mailed for it alone, counted against the reader's and
 * the site's limits (429 past them), unless
 * - the address stopped all mail: nothing is sent, whoever asks; only the owner lifts the stop (their
 *   session, or the resume button of a "stop all mail" link from an earlier mail: unsubscribe);
 * - a link of the address is pending (one at a time, so the form cannot mail someone repeatedly).
 * Then the subscription waits for a confirmation that does not come. The answer is the same in every
 * case: it tells no one what an address did. A user's default applies when the request does not
 * say; a guest asks each time.
 */
export async function subscribeToReplies(
  trx: Transaction<Database>,
  mail: MailConfig | null,
  confirmMails: ConfirmMailLimiter | null,
  caller: Caller,
  site: Site,
  comment: CommentRow,
  wish: ReplyMailWish,
): Promise<void> {
  if (mail === null || wish.notify_replies === false) return;
  const userId = caller.kind === 'session' ? caller.userId : null;
  if (userId === null && wish.notify_replies === undefined) return;
  const asked = wish.email === undefined ? null : normaliseEmail(wish.email);
  let [found] = await userAndAddress(trx, null, userId, site.id, asked);
  if (!(wish.notify_replies ?? found.userNotifies === 1)) return;
  const language = wish.language ?? null;
  // The reader's language, for their mention mails: read with the rest, written only when it changed.
  if (userId !== null && language !== null && found.userLanguage !== language) await trx.updateTable('site_users').set({ language }).where('id', '=', userId).execute();
  const known = found.userEmail ? normaliseEmail(found.userEmail) : null;
  const email = asked ?? known;
  if (email === null) {
    // Asked for in this request, the address is needed; a default with no address known does nothing.
    if (wish.notify_replies === true) throw invalid('body/email', 'is needed to email replies (notify_replies)');
    return;
  }
  if (asked === null) [found] = await userAndAddress(trx, null, null, site.id, email);
  const owner = email === known;
  const now = nowIso();
  const address = await keptAddress(trx, site.id, email, userId, owner, now, found, language);
  // The address speaks the language it was last given in; a request that names none keeps the one it had.
  if (language !== null && address.language !== language) await trx.updateTable('mail_addresses').set({ language }).where('id', '=', address.id).execute();
  const subscription = { comment_id: comment.id, address_id: address.id, thread_id: comment.thread_id, created_at: now, unsubscribed_at: null };
  if (owner) {
    if (address.unsubscribedAt !== null || address.confirmedAt === null) {
      await trx.updateTable('mail_addresses').set({ unsubscribed_at: null, confirmed_at: address.confirmedAt ?? now }).where('id', '=', address.id).execute();
    }
    await insertSubscription(trx, { ...subscription, confirmed_at: now, confirm_token_hash: null });
    return;
  }
  const linkPending = address.confirmExpiresAt !== null && address.confirmExpiresAt > now;
  const link = address.unsubscribedAt === null && !linkPending ? await mailConfirmation(trx, mail, confirmMails, caller, site, address.id, email, language ?? address.language, now) : null;
  await insertSubscription(trx, { ...subscription, confirmed_at: null, confirm_token_hash: link });
}

/** Mails an address the link that confirms one subscription; returns the hash of its token. */
async function mailConfirmation(
  trx: Transaction<Database>,
  mail: MailConfig,
  confirmMails: ConfirmMailLimiter | null,
  caller: Caller,
  site: Site,
  addressId: string,
  email: string,
  language: string | null,
  now: string,
): Promise<string> {
  await confirmMails?.take(site.id, caller.kind === 'session' ? caller.userId : clientKey(caller.ip));
  const token = newConfirmToken();
  const tokenHash = hashSecret(token);
  const expires = new Date(Date.parse(now) + CONFIRM_LIFETIME_MS).toISOString();
  await trx.updateTable('mail_addresses').set({ confirm_token_hash: tokenHash, confirm_expires_at: expires }).where('id', '=', addressId).execute();
  await queueMail(trx, { kind: 'confirm', cause: tokenHash, recipient: email, siteId: site.id, data: { url: confirmUrl(mail.publicUrl, token), language } });
  return tokenHash;
}

/**
 * A reply mail goes for a guest's comment, or a reader's who is mailed per event (not one who chose
 * digests or no mail: a digest tells them of it). Over subscriptions joined with their comment as `p`.
 */
export function mailedPerEvent(eb: ExpressionBuilder<Database & { p: CommentTable }, 'p'>) {
  const frequency = eb.selectFrom('site_users as u').select('u.mail_frequency').whereRef('u.id', '=', 'p.author_ref');
  return eb.or([eb(frequency, 'is', null), eb(frequency, '=', 'instant')]);
}

/**
 * A reply the public now sees (posted published, or approved): its parent's author gets a mail if
 * they asked for replies, confirmed the address and stopped nothing, and did not write the reply.
 * Due no sooner than REPLY_MAIL_INTERVAL_MS after the last reply mail of the thread to them (the
 * worker rolls every pending one of the thread into that mail, and checks the interval again).
 */
export async function queueReplyMail(trx: Transaction<Database>, mail: MailConfig | null, reply: CommentRow): Promise<void> {
  if (mail === null || reply.parent_id === null) return;
  const subscription = await trx
    .selectFrom('mail_subscriptions as s')
    .innerJoin('mail_addresses as a', 'a.id', 's.address_id')
    .innerJoin('comments as p', 'p.id', 's.comment_id')
    .where('s.comment_id', '=', reply.parent_id)
    .where('s.unsubscribed_at', 'is', null)
    .where('s.confirmed_at', 'is not', null)
    .where('a.unsubscribed_at', 'is', null)
    .where(mailedPerEvent)
    .select(['s.address_id', 'a.email', 'a.site_id', 'p.author_ref'])
    .executeTakeFirst();
  if (!subscription) return;
  if (subscription.author_ref !== null && subscription.author_ref === reply.author_ref) return;
  // A guest who answers themselves under the same address.
  const own = await trx.selectFrom('mail_subscriptions').select('address_id').where('comment_id', '=', reply.id).executeTakeFirst();
  if (own?.address_id === subscription.address_id) return;
  const last = await lastThreadMailAt(trx, 'reply', subscription.email, reply.thread_id);
  await queueMail(trx, {
    kind: 'reply',
    cause: reply.id,
    recipient: subscription.email,
    siteId: subscription.site_id,
    threadId: reply.thread_id,
    data: { reply_id: reply.id, comment_id: reply.parent_id, address_id: subscription.address_id },
    dueAt: last === null ? undefined : new Date(Date.parse(last) + REPLY_MAIL_INTERVAL_MS).toISOString(),
  });
}

/** When the last mail of this kind (reply or mention) about a thread went to this address; null if none did. */
export async function lastThreadMailAt(db: Kysely<Database>, kind: 'reply' | 'mention', recipient: string, threadId: string): Promise<string | null> {
  const row = await db
    .selectFrom('mail_outbox')
    .select((eb) => eb.fn.max('sent_at').as('last'))
    .where('recipient', '=', recipient)
    .where('thread_id', '=', threadId)
    .where('state', '=', 'sent')
    .where('kind', '=', kind)
    .executeTakeFirst();
  return (row?.last as string | null | undefined) ?? null;
}

const UNUSABLE_CONFIRM = 'This confirmation link is unknown, used or expired';

/** The address a pending confirmation link is for, or 404 however it is unusable. */
export async function pendingConfirmation(db: Kysely<Database>, token: string) {
  const row = token.startsWith('mc_')
    ? await db.selectFrom('mail_addresses').select(['id', 'site_id', 'email', 'language', 'confirm_expires_at']).where('confirm_token_hash', '=', hashSecret(token)).executeTakeFirst()
    : undefined;
  if (!row || row.confirm_expires_at === null || row.confirm_expires_at <= nowIso()) throw new AppError('not_found', UNUSABLE_CONFIRM);
  return row;
}

/** Uses a confirmation link, once, within its 24 hours: it confirms the address and the subscription it was mailed for, no other. Answers the address. */
export async function confirmAddress(db: Kysely<Database>, token: string) {
  const row = await pendingConfirmation(db, token);
  const tokenHash = hashSecret(token);
  const now = nowIso();
  await db.transaction().execute(async (trx) => {
    const done = await trx
      .updateTable('mail_addresses')
      .set({ confirmed_at: now, confirm_token_hash: null, confirm_expires_at: null })
      .where('id', '=', row.id)
      .where('confirm_token_hash', '=', tokenHash)
      .executeTakeFirst();
    if (Number(done.numUpdatedRows) !== 1) throw new AppError('not_found', UNUSABLE_CONFIRM);
    await trx.updateTable('mail_subscriptions').set({ confirmed_at: now, confirm_token_hash: null }).where('address_id', '=', row.id).where('confirm_token_hash', '=', tokenHash).execute();
  });
  return row;
}

/** The address an unsubscribe link names, when its signature holds; 404 otherwise (the answer tells nothing more). */
export async function signedAddress(db: Kysely<Database>, what: UnsubscribeTarget, signature: string) {
  const row = await db.selectFrom('mail_addresses').select(['id', 'site_id', 'link_key', 'language', 'unsubscribed_at']).where('id', '=', what.address).executeTakeFirst();
  if (!row || !validSignature(row.link_key, what, signature)) throw new AppError('not_found', 'This unsubscribe link is unknown');
  return row;
}

/** What the button of an unsubscribe link's page asks for: stop (also a mail client's one-click), or, on a link for every mail, forget the address or resume its mail. */
export type UnsubscribeAction = 'stop' | 'forget' | 'resume';

/**
 * Does what an unsubscribe link's button asks; doing it again answers the same. Forgetting deletes
 * the address with everything it asked for (forgetAddresses), and the link, whose address is gone,
 * then answers 404. Resuming lifts "stop all mail": only the link of a mail sent to the address can
 * do it, so only its owner (subscriptions made meanwhile by anyone else stay unconfirmed).
 * Answers the address as it was (its page speaks its language, even once it is forgotten).
 */
export async function unsubscribe(db: Kysely<Database>, what: UnsubscribeTarget, signature: string, action: UnsubscribeAction) {
  if (action !== 'stop' && what.scope !== 'all') throw invalid(`body/${action}`, 'is offered only by a link that stops every mail (scope all)');
  const address = await signedAddress(db, what, signature);
  if (action === 'forget') {
    await db.transaction().execute((trx) => forgetAddresses(trx, [address.id]));
    return address;
  }
  const now = nowIso();
  if (what.scope === 'all') {
    const row = db.updateTable('mail_addresses').where('id', '=', address.id);
    await (action === 'stop' ? row.set({ unsubscribed_at: now }).where('unsubscribed_at', 'is', null) : row.set({ unsubscribed_at: null })).execute();
    return address;
  }
  if (what.scope === 'mentions') {
    // The reader's own switch, as PATCH /v1/me {mention_mail: false} sets it.
    await db.updateTable('site_users').set({ mention_mail: 0 }).where('id', '=', what.target).where('site_id', '=', address.site_id).execute();
    return address;
  }
  if (what.scope === 'notifications') {
    // The reader's own setting, as PUT /v1/sessions/current/mail {frequency: 'off'} sets it.
    await db.updateTable('site_users').set({ mail_frequency: 'off', digest_due_at: null }).where('id', '=', what.target).where('site_id', '=', address.site_id).execute();
    return address;
  }
  if (what.scope === 'follow') {
    await db.deleteFrom('follows').where('id', '=', what.target).where('site_id', '=', address.site_id).execute();
    return address;
  }
  const column = what.scope === 'comment' ? 'comment_id' : 'thread_id';
  await db
    .updateTable('mail_subscriptions')
    .set({ unsubscribed_at: now })
    .where('address_id', '=', address.id)
    .where(column, '=', what.target)
    .where('unsubscribed_at', 'is', null)
    .execute();
  return address;
}

/** The mails a reader's address gets (a staff member's moderation and reset mails are theirs, not a reader's). */
const READER_MAIL_KINDS: MailKind[] = ['confirm', 'reply', 'mention', 'sign_in', 'followed', 'notice', 'digest'];

/**
 * Deletes readers' addresses with everything tied to them: their subscriptions, and the reader mails
 * queued or sent to them (each outbox row names its recipient). A mail the worker is handing over at
 * that moment may still go; nothing is queued for the address afterwards. Returns how many went.
 */
export async function forgetAddresses(trx: Kysely<Database>, addressIds: string[]): Promise<number> {
  if (addressIds.length === 0) return 0;
  const addresses = await trx.selectFrom('mail_addresses').select(['id', 'site_id', 'email']).where('id', 'in', addressIds).execute();
  const ids = addresses.map((address) => address.id);
  if (ids.length === 0) return 0;
  for (const address of addresses) {
    await trx.deleteFrom('mail_outbox').where('recipient', '=', address.email).where('site_id', '=', address.site_id).where('kind', 'in', READER_MAIL_KINDS).execute();
  }
  await trx.deleteFrom('mail_subscriptions').where('address_id', 'in', ids).execute();
  await trx.deleteFrom('mail_addresses').where('id', 'in', ids).execute();
  return ids.length;
}
