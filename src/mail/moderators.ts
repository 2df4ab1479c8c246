import type { Kysely, Transaction } from 'kysely';
import type { CommentRow } from '../comments/view.ts';
import type { MailConfig } from '../config.ts';
import type { Database } from '../db/schema.ts';
import type { Site } from '../sites/repository.ts';
import { siteIdsOf } from '../staff/repository.ts';
import { queueMail } from './outbox.ts';

/** A staff member's choice of moderation mails: none, comments waiting for approval, or those and flags. */
export const MODERATION_MAIL = ['off', 'pending', 'all'] as const;
export type ModerationMail = (typeof MODERATION_MAIL)[number];

export type ModerationCause = { why: 'pending' } | { why: 'flagged'; flagger: string; reason: string | null };

/** Where a comment is opened in the dashboard: in its thread, where it can be moderated. */
export function dashboardUrl(publicUrl: string, comment: { site_id: string; thread_url: string; id: string }): string {
  const query = new URLSearchParams({ site: comment.site_id, url: comment.thread_url, comment: comment.id });
  return `${publicUrl}/dashboard/thread?${query}`;
}

/**
 * Staff of the site's account who moderate it and want this kind of mail. A team is small: read
 * whole, the site scope of moderators limited to some sites checked here.
 */
async function recipients(trx: Kysely<Database>, site: Site, why: ModerationCause['why']) {
  const rows = await trx
    .selectFrom('staff_memberships as m')
    .innerJoin('staff as s', 's.id', 'm.staff_id')
    .select(['s.id', 's.email', 'm.site_ids'])
    .where('m.account_id', '=', site.accountId)
    .where('s.moderation_mail', 'in', why === 'pending' ? ['pending', 'all'] : ['all'])
    .execute();
  return rows.filter((row) => siteIdsOf(row.site_ids)?.includes(site.id) ?? true);
}

/** A comment waits for moderation, or was flagged: queued in that change's transaction, one mail per staff member and cause. */
export async function queueModerationMails(trx: Transaction<Database>, mail: MailConfig | null, site: Site, comment: CommentRow, cause: ModerationCause): Promise<void> {
  if (mail === null) return;
  const causeKey = cause.why === 'pending' ? `pending:${comment.id}` : `flagged:${comment.id}:${cause.flagger}`;
  for (const staff of await recipients(trx, site, cause.why)) {
    await queueMail(trx, {
      kind: 'moderation',
      cause: causeKey,
      recipient: staff.email,
      siteId: site.id,
      data: { why: cause.why, comment_id: comment.id, reason: cause.why === 'flagged' ? cause.reason : null },
    });
  }
}
