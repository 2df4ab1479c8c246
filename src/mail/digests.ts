import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { nextDigestAt } from './digest-times.ts';
import { queueMail } from './outbox.ts';
import { addressRows, readerAddresses } from './reader-addresses.ts';

/** What a reader's digest row holds: whose notifications, marked mailed at which time, and whether it is the daily or the weekly one. */
export type DigestMailData = {
  user_id: string;
  address_id: string;
  mailed_at: string;
  frequency: 'daily' | 'weekly';
};

/** What a staff member's moderation digest row holds: the counts are read when it is sent. */
export type StaffDigestMailData = { staff_id: string };

/** Digests taken per poll and kind: the next poll takes the rest. */
const DIGESTS_PER_POLL = 100;

/**
 * Moves a digest's due time on from the one read, if no one else did since: the compare-and-set that
 * makes one instance, and one only, take a digest that falls due while several poll.
 */
async function tookDigest(trx: Kysely<Database>, table: 'site_users' | 'staff', id: string, due: string, next: string | null): Promise<boolean> {
  const moved = await trx.updateTable(table).set({ digest_due_at: next }).where('id', '=', id).where('digest_due_at', '=', due).executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}

/**
 * A reader's due digest, in one transaction: their next one is scheduled; their unread notifications
 * no mail told of yet are marked mailed now and one mail of them is queued (none when there are none,
 * or the reader has no address, or stopped all mail: those wait for the next). The mail's cause is the
 * due time it was taken for, so the outbox would take it once even from a second taker.
 */
async function queueReaderDigest(db: Kysely<Database>, reader: { id: string; site_id: string; email: string | null; mail_frequency: string; time_zone: string | null; digest_due_at: string | null }, now: string) {
  const frequency = reader.mail_frequency;
  const due = reader.digest_due_at!;
  const next = frequency === 'daily' || frequency === 'weekly' ? nextDigestAt(frequency, reader.time_zone, new Date(now)) : null;
  await db.transaction().execute(async (trx) => {
    if (!(await tookDigest(trx, 'site_users', reader.id, due, next)) || next === null) return;
    const [found] = await readerAddresses(trx, reader.site_id, [reader]);
    if (found === undefined) return;
    const address = (await addressRows(trx, reader.site_id, [found], now)).get(reader.id)!;
    if (address.unsubscribedAt !== null) return;
    const marked = await trx
      .updateTable('notifications')
      .set({ mailed_at: now })
      .where('site_id', '=', reader.site_id)
      .where('user_id', '=', reader.id)
      .where('mailed_at', 'is', null)
      .where('read_at', 'is', null)
      .executeTakeFirst();
    if (Number(marked.numUpdatedRows) === 0) return;
    const data: DigestMailData = { user_id: reader.id, address_id: address.id, mailed_at: now, frequency: frequency as DigestMailData['frequency'] };
    await queueMail(trx, { kind: 'digest', cause: `${reader.id}:${due}`, reader: reader.id, recipient: found.email, siteId: reader.site_id, data });
  });
}

/** A staff member's due moderation digest: scheduled on, and queued if they want moderation mail at a confirmed address (what waits is read when it goes). */
async function queueStaffDigest(db: Kysely<Database>, staff: { id: string; email: string; email_verified_at: string | null; moderation_mail: string; moderation_mail_frequency: string; time_zone: string | null; digest_due_at: string | null }, now: string) {
  const due = staff.digest_due_at!;
  const next = staff.moderation_mail_frequency === 'daily' ? nextDigestAt('daily', staff.time_zone, new Date(now)) : null;
  await db.transaction().execute(async (trx) => {
    if (!(await tookDigest(trx, 'staff', staff.id, due, next)) || next === null) return;
    if (staff.moderation_mail === 'off' || staff.email_verified_at === null) return;
    const data: StaffDigestMailData = { staff_id: staff.id };
    await queueMail(trx, { kind: 'moderation_digest', cause: `${staff.id}:${due}`, recipient: staff.email, siteId: null, data });
  });
}

/**
 * Queues the digests due by `now`, readers' and staff members', each in its own transaction (see
 * queueReaderDigest): the mail worker calls it before it looks for mails to send.
 */
export async function queueDueDigests(db: Kysely<Database>, now: string): Promise<void> {
  const readers = await db
    .selectFrom('site_users')
    .select(['id', 'site_id', 'email', 'mail_frequency', 'time_zone', 'digest_due_at'])
    .where('digest_due_at', '<=', now)
    .where('erased_at', 'is', null)
    .orderBy('digest_due_at')
    .limit(DIGESTS_PER_POLL)
    .execute();
  for (const reader of readers) await queueReaderDigest(db, reader, now);
  const staff = await db
    .selectFrom('staff')
    .select(['id', 'email', 'email_verified_at', 'moderation_mail', 'moderation_mail_frequency', 'time_zone', 'digest_due_at'])
    .where('digest_due_at', '<=', now)
    .orderBy('digest_due_at')
    .limit(DIGESTS_PER_POLL)
    .execute();
  for (const member of staff) await queueStaffDigest(db, member, now);
}
