import type { Caller, StaffCaller } from '../auth/caller.ts';
import { requireCredential } from '../auth/caller.ts';
import type { Db } from '../db/connect.ts';
import { AppError } from '../errors.ts';
import type { ModerationMail } from './moderators.ts';

function requireSession(caller: Caller) {
  requireCredential(caller);
  if (caller.kind !== 'session') throw new AppError('forbidden', "Only a reader's session has mail settings");
  return caller;
}

/** A signed-in reader's own default for "Email me replies", and the address SSO gave them. */
export async function readerMailSettings(db: Db, caller: Caller) {
  const session = requireSession(caller);
  const user = await db.kysely.selectFrom('site_users').select(['notify_replies', 'email']).where('id', '=', session.userId).executeTakeFirstOrThrow();
  return { notify_replies: user.notify_replies === 1, email: user.email, mail_enabled: db.mail !== null };
}

export async function changeReaderMailSettings(db: Db, caller: Caller, notifyReplies: boolean) {
  const session = requireSession(caller);
  await db.kysely.updateTable('site_users').set({ notify_replies: notifyReplies ? 1 : 0 }).where('id', '=', session.userId).execute();
  return readerMailSettings(db, caller);
}

/** A staff member's own choice of moderation mails (their own setting, so no audit entry: nobody else's is touched). */
export async function staffMailSettings(db: Db, caller: StaffCaller) {
  const staff = await db.kysely.selectFrom('staff').select('moderation_mail').where('id', '=', caller.staffId).executeTakeFirstOrThrow();
  return { moderation_mail: staff.moderation_mail as ModerationMail, mail_enabled: db.mail !== null };
}

export async function changeStaffMailSettings(db: Db, caller: StaffCaller, moderationMail: ModerationMail) {
  await db.kysely.updateTable('staff').set({ moderation_mail: moderationMail }).where('id', '=', caller.staffId).execute();
  return staffMailSettings(db, caller);
}
