import type { Caller } from '../auth/caller.ts';
import { actorOf, recordAudit } from '../audit/audit.ts';
import { nowIso } from '../clock.ts';
import type { Db } from '../db/connect.ts';
import { forgetAddresses } from '../mail/readers.ts';
import { endSessions } from '../sessions/service.ts';
import type { Site } from '../sites/repository.ts';
import { normaliseEmail } from '../staff/repository.ts';
import { siteUser } from './repository.ts';

/** The name an erased user's row and comments carry instead of theirs. */
export const ERASED_NAME = 'Deleted user';

/**
 * Erases a site user's personal data, as an admin does when someone asks to be forgotten. Their mail
 * addresses (the ones they gave signed in, their SSO address, and any address subscribed on their
 * comments) go with their subscriptions and the mails queued or sent to them; their sessions end;
 * moderators' notes on them go; their name becomes ERASED_NAME and their avatar, address and the
 * site's id for them are cleared, so a later sign-in with that id is a new user. Their comments stay,
 * under ERASED_NAME (delete or remove them first if they should go too); votes and bans stay, tied
 * to nothing personal. The audit entry holds counts, not what was erased. Doing it again changes
 * nothing and records nothing.
 */
export async function eraseUser(db: Db, caller: Caller, site: Site, userId: string): Promise<void> {
  const user = await siteUser(db, site, userId);
  if (user.erased_at !== null) return;
  await db.kysely.transaction().execute(async (trx) => {
    const claimed = await trx
      .updateTable('site_users')
      // The unique (site, external id) pair needs a value; this one no site's sign-in sends by chance.
      .set({ name: ERASED_NAME, external_id: `erased:${user.id}`, avatar_url: null, email: null, profile_issued_at: null, notify_replies: 0, erased_at: nowIso() })
      .where('id', '=', user.id)
      .where('erased_at', 'is', null)
      .executeTakeFirst();
    // Erased meanwhile by another request, which records it.
    if (Number(claimed.numUpdatedRows) === 0) return;
    const addresses = await trx
      .selectFrom('mail_addresses')
      .select('id')
      .where('site_id', '=', site.id)
      .where((eb) =>
        eb.or([
          eb('user_id', '=', user.id),
          ...(user.email ? [eb('email', '=', normaliseEmail(user.email))] : []),
          eb('id', 'in', eb.selectFrom('mail_subscriptions as s').innerJoin('comments as c', 'c.id', 's.comment_id').select('s.address_id').where('c.site_id', '=', site.id).where('c.author_ref', '=', user.id)),
        ]),
      )
      .execute();
    const forgotten = await forgetAddresses(trx, addresses.map((address) => address.id));
    const sessions = await endSessions(trx, { siteId: site.id, userId: user.id });
    await trx.deleteFrom('commenter_notes').where('site_id', '=', site.id).where('user_id', '=', user.id).execute();
    const renamed = await trx.updateTable('comments').set({ author_name: ERASED_NAME }).where('site_id', '=', site.id).where('author_ref', '=', user.id).executeTakeFirst();
    await recordAudit(trx, {
      accountId: site.accountId,
      actor: actorOf(caller),
      action: 'user.erased',
      target: user.id,
      data: { site_id: site.id, addresses: forgotten, sessions_ended: sessions, comments_renamed: Number(renamed.numUpdatedRows) },
    });
  });
}
