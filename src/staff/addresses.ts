import type { Kysely } from 'kysely';
import { nowIso } from '../clock.ts';
import type { Db } from '../db/connect.ts';
import type { Database } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { queueMail } from '../mail/outbox.ts';
import type { AddressMailLimiter } from '../ratelimits/address-mails.ts';
import { createLink, pendingLink, revokePendingLinks, spendLink } from './links.ts';
import type { StaffRow } from './repository.ts';
import { endSessionsOf } from './sessions.ts';

/**
 * A staff member's address is theirs once they follow a link mailed to it. Until then no mail goes
 * to it (moderation mails, reset links) and it claims nothing: a person joining later with that
 * address takes it over, and the link mailed to them decides whose it is. Without mail (no SMTP)
 * nothing can be proven: addresses stay unconfirmed, shown so, and the first claim holds.
 */
export const VERIFY_PAGE = '/api/auth/verify-email';

/** Where a released address goes (`.invalid` never delivers). */
const RELEASED_DOMAIN = '@unconfirmed.invalid';
const MAIL_OFF = 'This server sends no mail (its administrator has not set up an SMTP server), so no confirmation link can be mailed: the address stays unconfirmed';

/**
 * Mails the person a link that confirms their address (in the transaction that gave it to them),
 * revoking the one before; nothing without mail. Returns when the new link expires.
 */
export async function requestConfirmation(db: Db, trx: Kysely<Database>, staff: Pick<StaffRow, 'id' | 'email'>, accountId: string): Promise<string | null> {
  if (!db.mail) return null;
  await revokePendingLinks(trx, { kind: 'verify', staffId: staff.id });
  const { row, token } = await createLink(trx, { kind: 'verify', accountId, staffId: staff.id, email: staff.email, createdBy: staff.id });
  const url = `${db.mail.publicUrl}${VERIFY_PAGE}?${new URLSearchParams({ token })}`;
  await queueMail(trx, { kind: 'verify', cause: row.id, recipient: staff.email, siteId: null, data: { url } });
  return row.expires_at;
}

/**
 * A new confirmation link for the signed-in person, when the mailed one expired or was lost: to
 * their own address only, counted by `limiter` so the button cannot flood a mailbox.
 */
export async function resendConfirmation(db: Db, limiter: AddressMailLimiter, staffId: string): Promise<{ email: string; expires_at: string }> {
  if (!db.mail) throw new AppError('conflict', MAIL_OFF);
  const staff = await db.kysely.selectFrom('staff').selectAll().where('id', '=', staffId).executeTakeFirstOrThrow();
  if (staff.email_verified_at !== null) throw new AppError('conflict', 'Your address is already confirmed');
  // Taken over by the person who proved it: nothing of theirs is left to confirm.
  if (staff.email.endsWith(RELEASED_DOMAIN)) throw new AppError('conflict', 'Your address was confirmed by someone else, who holds it now: ask an owner of your account for an invite to another address');
  // The link is filed under an account, as every staff link is: the person's first.
  const membership = await db.kysely.selectFrom('staff_memberships').select('account_id').where('staff_id', '=', staffId).orderBy('created_at').limit(1).executeTakeFirst();
  if (!membership) throw new AppError('conflict', 'You belong to no account any more, so no confirmation link can be made');
  await limiter.take(staffId);
  const expiresAt = await db.kysely.transaction().execute((trx) => requestConfirmation(db, trx, staff, membership.account_id));
  db.changes.mailsQueued();
  return { email: staff.email, expires_at: expiresAt! };
}

/** Whether a join may take this address from the person holding it: an address nobody proved is up for whoever proves it. */
export function mayTakeOver(db: Db, holder: StaffRow): boolean {
  return db.mail !== null && holder.email_verified_at === null;
}

/**
 * Takes an unconfirmed address from its holder: they keep their memberships under an address that
 * is no one's (`.invalid` never delivers), their sessions and confirmation link end.
 */
export async function releaseAddress(trx: Kysely<Database>, holder: StaffRow): Promise<void> {
  const released = await trx
    .updateTable('staff')
    .set({ email: `${holder.id}${RELEASED_DOMAIN}`, updated_at: nowIso() })
    .where('id', '=', holder.id)
    .where('email_verified_at', 'is', null)
    .executeTakeFirst();
  // Confirmed since it was read: the address is theirs now.
  if (Number(released.numUpdatedRows) !== 1) throw new AppError('conflict', 'This address was just confirmed by the person who holds it: sign in with their password, or use another address');
  await revokePendingLinks(trx, { kind: 'verify', staffId: holder.id });
  await endSessionsOf(trx, holder.id, null);
}

/** A confirmation link still pending (404 otherwise), for the page that asks before confirming. */
export async function pendingConfirmation(db: Kysely<Database>, token: string): Promise<{ language: string | null }> {
  const link = await pendingLink(db, 'verify', token);
  return staffLanguageOf(db, link.staff_id!);
}

/** The language a staff member chose, for the pages of their links. */
async function staffLanguageOf(db: Kysely<Database>, staffId: string): Promise<{ language: string | null }> {
  const staff = await db.selectFrom('staff').select('language').where('id', '=', staffId).executeTakeFirst();
  return { language: staff?.language ?? null };
}

/** Confirms the address the link was mailed to, if its person still has it (404 otherwise). */
export async function confirmAddress(db: Kysely<Database>, token: string): Promise<{ language: string | null }> {
  const link = await pendingLink(db, 'verify', token);
  await db.transaction().execute(async (trx) => {
    const confirmed = await trx
      .updateTable('staff')
      .set({ email_verified_at: nowIso() })
      .where('id', '=', link.staff_id!)
      .where('email', '=', link.email!)
      .executeTakeFirst();
    if (Number(confirmed.numUpdatedRows) !== 1) throw new AppError('not_found', 'This confirmation link is unknown, used, replaced or expired');
    await spendLink(trx, link, link.staff_id!);
  });
  return staffLanguageOf(db, link.staff_id!);
}
