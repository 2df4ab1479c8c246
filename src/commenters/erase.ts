import { relabelledBadges } from '../comments/badges.ts';
import { recordAudit, type Actor } from '../audit/audit.ts';
import { nowIso } from '../clock.ts';
import type { Db } from '../db/connect.ts';
import { forgetAddresses } from '../mail/readers.ts';
import { unmentionErasedUser } from '../mentions/erased.ts';
import { endSessions } from '../sessions/service.ts';
import { ownAddresses } from '../readers/me/sign-in-methods.ts';
import type { Site } from '../sites/repository.ts';
import { siteUser } from './repository.ts';

/** The name an erased user's row and comments carry instead of theirs. */
export const ERASED_NAME = 'Deleted user';

/** Mails about a site to its staff, which a reader's address can also be (a site's owner commenting there): not the reader's to erase. */
const STAFF_MAIL_KIND = 'moderation';

export interface ErasureOptions {
  /** The sweeper's: erase only while the reader's deletion is due by then (signing in again cancels it). */
  dueBy?: string;
}

/**
 * Erases a site user's personal data, as an admin does when someone asks to be forgotten, or the
 * reader does themselves (DELETE /v1/me). Their mail addresses (the ones they gave signed in, their
 * SSO address, the addresses they proved to sign in, and any address subscribed on their comments)
 * go with their subscriptions and the mails queued or sent to them; their ways of signing in and any
 * sign-in codes for their addresses go; their sessions end; moderators' notes on them go; their name
 * becomes ERASED_NAME and their avatar, address and the site's id for them are cleared, so a later
 * sign-in with that id (or that address) is a new user. Their comments stay, under ERASED_NAME
 * (delete or remove them first if they should go too), but not the earlier versions their edits
 * left, and comments that mention them name ERASED_NAME instead, unlinked; votes and bans stay,
 * tied to nothing personal. The audit entry holds counts, not what was erased. Doing it again
 * changes nothing and records nothing. Answers whether this call erased the user.
 */
export async function eraseUser(db: Db, actor: Actor, site: Site, userId: string, options: ErasureOptions = {}): Promise<boolean> {
  const user = await siteUser(db, site, userId);
  if (user.erased_at !== null) return false;
  const renamed = await db.kysely.transaction().execute(async (trx) => {
    let claim = trx
      .updateTable('site_users')
      // The unique (site, external id) pair needs a value; this one no site's sign-in sends by chance.
      .set({ name: ERASED_NAME, external_id: `erased:${user.id}`, avatar_url: null, email: null, profile_issued_at: null, notify_replies: 0, labels: '[]', erased_at: nowIso(), erase_after: null })
      .where('id', '=', user.id)
      .where('erased_at', 'is', null);
    if (options.dueBy !== undefined) claim = claim.where('erase_after', '<=', options.dueBy);
    const claimed = await claim.executeTakeFirst();
    // Erased meanwhile by another request, which records it; or, for the sweeper, signed in again.
    if (Number(claimed.numUpdatedRows) === 0) return null;
    const emails = await ownAddresses(trx, site.id, user);
    const addresses = await trx
      .selectFrom('mail_addresses')
      .select('id')
      .where('site_id', '=', site.id)
      .where((eb) =>
        eb.or([
          eb('user_id', '=', user.id),
          ...(emails.length > 0 ? [eb('email', 'in', emails)] : []),
          eb('id', 'in', eb.selectFrom('mail_subscriptions as s').innerJoin('comments as c', 'c.id', 's.comment_id').select('s.address_id').where('c.site_id', '=', site.id).where('c.author_ref', '=', user.id)),
        ]),
      )
      .execute();
    const forgotten = await forgetAddresses(trx, addresses.map((address) => address.id));
    if (emails.length > 0) {
      // Sign-in codes mailed to an address that no longer has a row here.
      await trx.deleteFrom('mail_outbox').where('site_id', '=', site.id).where('recipient', 'in', emails).where('kind', '<>', STAFF_MAIL_KIND).execute();
      await trx.deleteFrom('sign_in_codes').where('site_id', '=', site.id).where('email', 'in', emails).execute();
    }
    const identities = await trx.deleteFrom('reader_identities').where('site_id', '=', site.id).where('user_id', '=', user.id).executeTakeFirst();
    const sessions = await endSessions(trx, { siteId: site.id, userId: user.id });
    await trx.deleteFrom('commenter_notes').where('site_id', '=', site.id).where('user_id', '=', user.id).execute();
    // What they wrote to contest a decision is theirs too; the decision stays in the moderation log.
    await trx.deleteFrom('decision_contests').where('site_id', '=', site.id).where('user_id', '=', user.id).execute();
    // What their edits took back is theirs too.
    const theirComments = trx.selectFrom('comments').select('id').where('site_id', '=', site.id).where('author_ref', '=', user.id);
    await trx.deleteFrom('comment_revisions').where('site_id', '=', site.id).where('comment_id', 'in', theirComments).execute();
    // The labels a moderator gave them said something of the person: their comments keep only how they were written.
    const comments = await trx.updateTable('comments').set({ author_name: ERASED_NAME, author_badges: relabelledBadges([]) }).where('site_id', '=', site.id).where('author_ref', '=', user.id).executeTakeFirst();
    const unmentioned = await unmentionErasedUser(trx, site, user.id, ERASED_NAME);
    await recordAudit(trx, {
      accountId: site.accountId,
      actor,
      action: 'user.erased',
      target: user.id,
      data: {
        site_id: site.id,
        addresses: forgotten,
        sign_in_methods: Number(identities.numDeletedRows),
        sessions_ended: sessions,
        comments_renamed: Number(comments.numUpdatedRows),
        mentions_renamed: unmentioned,
      },
    });
    return Number(comments.numUpdatedRows) + unmentioned;
  });
  if (renamed === null) return false;
  // Cached lists and comments show author names and mentions: every thread the user wrote in, or was mentioned in, may hold one.
  if (renamed > 0) db.changes.siteChanged(site.id);
  return true;
}
