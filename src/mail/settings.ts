import type { Caller, StaffCaller } from '../auth/caller.ts';
import { requireCredential } from '../auth/caller.ts';
import type { Db } from '../db/connect.ts';
import type { Flag } from '../db/schema.ts';
import { AppError, invalid } from '../errors.ts';
import { digestDueAt, knownTimeZone, type ReaderMailFrequency, type StaffMailFrequency } from './digest-times.ts';
import type { ModerationMail } from './moderators.ts';

function requireSession(caller: Caller) {
  requireCredential(caller);
  if (caller.kind !== 'session') throw new AppError('forbidden', "Only a reader's session has mail settings");
  return caller;
}

function checkedTimeZone(timeZone: string | null | undefined): void {
  if (timeZone != null && !knownTimeZone(timeZone)) throw invalid('body/time_zone', 'is not an IANA time zone this server knows (such as Europe/Berlin)');
}

/** A signed-in reader's own default for "Email me replies", the address SSO gave them, and how often they are mailed. */
export async function readerMailSettings(db: Db, caller: Caller) {
  const session = requireSession(caller);
  const user = await db.kysely.selectFrom('site_users').select(['notify_replies', 'email', 'mail_frequency', 'time_zone']).where('id', '=', session.userId).executeTakeFirstOrThrow();
  return { notify_replies: user.notify_replies === 1, email: user.email, mail_enabled: db.mail !== null, frequency: user.mail_frequency as ReaderMailFrequency, time_zone: user.time_zone };
}

export interface ReaderMailChange {
  notify_replies?: boolean;
  frequency?: ReaderMailFrequency;
  time_zone?: string | null;
}

/** Changes what the request names; a new frequency or time zone sets when the next digest is due (none for instant and off). */
export async function changeReaderMailSettings(db: Db, caller: Caller, change: ReaderMailChange) {
  const session = requireSession(caller);
  checkedTimeZone(change.time_zone);
  const current = await db.kysely.selectFrom('site_users').select(['mail_frequency', 'time_zone']).where('id', '=', session.userId).executeTakeFirstOrThrow();
  const frequency = change.frequency ?? current.mail_frequency;
  const timeZone = change.time_zone === undefined ? current.time_zone : change.time_zone;
  const schedule = change.frequency === undefined && change.time_zone === undefined ? {} : { mail_frequency: frequency, time_zone: timeZone, digest_due_at: digestDueAt(frequency, timeZone, new Date()) };
  const changed = { ...(change.notify_replies === undefined ? {} : { notify_replies: (change.notify_replies ? 1 : 0) as Flag }), ...schedule };
  // A body of unknown fields only (which are ignored) changes nothing.
  if (Object.keys(changed).length > 0) await db.kysely.updateTable('site_users').set(changed).where('id', '=', session.userId).where('site_id', '=', session.siteId).execute();
  return readerMailSettings(db, caller);
}

/** A staff member's own choice of moderation mails (their own setting, so no audit entry: nobody else's is touched). */
export async function staffMailSettings(db: Db, caller: StaffCaller) {
  const staff = await db.kysely.selectFrom('staff').select(['moderation_mail', 'moderation_mail_frequency', 'time_zone']).where('id', '=', caller.staffId).executeTakeFirstOrThrow();
  return { moderation_mail: staff.moderation_mail as ModerationMail, mail_enabled: db.mail !== null, frequency: staff.moderation_mail_frequency as StaffMailFrequency, time_zone: staff.time_zone };
}

export interface StaffMailChange {
  moderation_mail?: ModerationMail;
  frequency?: StaffMailFrequency;
  time_zone?: string | null;
}

export async function changeStaffMailSettings(db: Db, caller: StaffCaller, change: StaffMailChange) {
  checkedTimeZone(change.time_zone);
  const current = await db.kysely.selectFrom('staff').select(['moderation_mail_frequency', 'time_zone']).where('id', '=', caller.staffId).executeTakeFirstOrThrow();
  const frequency = change.frequency ?? current.moderation_mail_frequency;
  const timeZone = change.time_zone === undefined ? current.time_zone : change.time_zone;
  const schedule =
    change.frequency === undefined && change.time_zone === undefined ? {} : { moderation_mail_frequency: frequency, time_zone: timeZone, digest_due_at: digestDueAt(frequency, timeZone, new Date()) };
  const changed = { ...(change.moderation_mail === undefined ? {} : { moderation_mail: change.moderation_mail }), ...schedule };
  if (Object.keys(changed).length > 0) await db.kysely.updateTable('staff').set(changed).where('id', '=', caller.staffId).execute();
  return staffMailSettings(db, caller);
}
