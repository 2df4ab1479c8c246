import type { Transaction } from 'kysely';
import type { CommentRow } from '../comments/view.ts';
import type { MailConfig } from '../config.ts';
import { preparedQuery } from '../db/prepared.ts';
import type { Database } from '../db/schema.ts';
import type { Site } from '../sites/repository.ts';
import { siteIdsOf } from '../staff/repository.ts';
import { queueMails } from './outbox.ts';

/** A staff member's choice of moderation mails: none, comments waiting for approval, or those and flags. */
export const MODERATION_MAIL = ['off', 'pending', 'all'] as const;
export type ModerationMail = (typeof MODERATION_MAIL)[number];

export type ModerationCause = { why: 'pending' } | { why: 'flagged'; flagger: string; reason: string | null };

/**
 * At most one moderation mail per staff member and site in this time: the comments that wait or are
 * flagged meanwhile roll into the next one, so a spam wave held by the spam checks is one mail every
 * ten minutes, not one per comment.
 */
export const MODERATION_MAIL_INTERVAL_MS = 10 * 60_000;

/** What a moderation mail's row holds. */
export type ModerationMailData = {
  why: ModerationCause['why'];
  comment_id: string;
  reason: string | null;
};

/** Where a comment is opened in the dashboard: in its thread, where it can be moderated. */
export function dashboardUrl(publicUrl: string, comment: { site_id: string; thread_url: string; id: string }): string {
  const query = new URLSearchParams({ site: comment.site_id, url: comment.thread_url, comment: comment.id });
  return `${publicUrl}/dashboard/thread?${query}`;
}

/** The dashboard's moderation queue of a site, on the tab of comments waiting or of flagged ones. */
export function queueUrl(publicUrl: string, siteId: string, tab: ModerationCause['why']): string {
  return `${publicUrl}/dashboard/queue?${new URLSearchParams({ site: siteId, tab })}`;
}

/**
 * Staff of the site's account who moderate it and want this kind of mail, each with when the last
 * moderation mail of the site went to them: the time of the next one is known with no statement of
 * its own (one probe of mail_outbox_site per staff member). A team is small: read whole, the site
 * scope of moderators limited to some sites checked here. Compiled once: a spam wave runs it for
 * every comment it holds.
 */
const teamToMail = preparedQuery((db, why: ModerationCause['why'], accountId: string, siteId: string) =>
  db
    .selectFrom('staff_memberships as m')
    .innerJoin('staff as s', 's.id', 'm.staff_id')
    .select((eb) => [
      's.email',
      'm.site_ids',
      eb
        .selectFrom('mail_outbox as o')
        .select((sub) => sub.fn.max('o.sent_at').as('last'))
        .whereRef('o.recipient', '=', 's.email')
        .where('o.site_id', '=', siteId)
        .where('o.kind', '=', 'moderation')
        .where('o.state', '=', 'sent')
        .as('last_mail_at'),
    ])
    .where('m.account_id', '=', accountId)
    .where('s.moderation_mail', 'in', why === 'pending' ? ['pending', 'all'] : ['all'])
    // Those who chose the daily digest hear of it there.
    .where('s.moderation_mail_frequency', '=', 'instant')
    // An address its holder has not confirmed may be someone else's (src/staff/addresses.ts).
    .where('s.email_verified_at', 'is not', null)
    .compile(),
);

/**
 * A comment waits for moderation, or was flagged: queued in that change's transaction, a mail per
 * staff member and cause, in one statement. The first of a quiet period is due at once; the others
 * when the interval since the last one sent ends, when the worker rolls them all into one mail (and
 * checks the interval again).
 */
export async function queueModerationMails(trx: Transaction<Database>, mail: MailConfig | null, site: Site, comment: CommentRow, cause: ModerationCause): Promise<void> {
  if (mail === null) return;
  const team = await teamToMail(trx, cause.why, site.accountId, site.id);
  const causeKey = cause.why === 'pending' ? `pending:${comment.id}` : `flagged:${comment.id}:${cause.flagger}`;
  const data: ModerationMailData = { why: cause.why, comment_id: comment.id, reason: cause.why === 'flagged' ? cause.reason : null };
  await queueMails(
    trx,
    team
      .filter((staff) => siteIdsOf(staff.site_ids)?.includes(site.id) ?? true)
      .map((staff) => ({
        kind: 'moderation' as const,
        cause: causeKey,
        recipient: staff.email,
        siteId: site.id,
        data,
        dueAt: staff.last_mail_at ? new Date(Date.parse(staff.last_mail_at) + MODERATION_MAIL_INTERVAL_MS).toISOString() : undefined,
      })),
  );
}
