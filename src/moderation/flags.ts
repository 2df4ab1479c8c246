import type { Caller } from '../auth/caller.ts';
import { requireCapability, requireSiteCapability } from '../auth/management.ts';
import { nowIso } from '../clock.ts';
import { commentWithSite } from '../comments/service.ts';
import type { CommentRow } from '../comments/view.ts';
import type { Db } from '../db/connect.ts';
import { lockRow } from '../db/dialect.ts';
import { withEvents } from '../events/record.ts';
import type { Site } from '../sites/repository.ts';
import { describeActors } from './actors.ts';
import { moderationResult, recordModeration, type Moderator, type ModerationResult } from './service.ts';

/** Every flag of a comment, newest first, with who raised it (guests by kind only: no IP leaves). */
export async function listFlags(db: Db, caller: Caller, commentId: string) {
  requireCapability(caller, 'moderate');
  const { comment, site } = await commentWithSite(db, commentId);
  requireSiteCapability(caller, site, 'moderate', `comment ${commentId}`);
  const rows = await db.kysely
    .selectFrom('flags')
    .select(['flagger_ref', 'reason', 'created_at', 'dismissed_at'])
    .where('comment_id', '=', commentId)
    .orderBy('created_at', 'desc')
    .execute();
  const actors = await describeActors(db.kysely, rows.map((row) => row.flagger_ref));
  return {
    comment_id: commentId,
    flag_count: Number(comment.flag_count),
    flags: rows.map((row) => ({ flagger: actors(row.flagger_ref), reason: row.reason, created_at: row.created_at, dismissed_at: row.dismissed_at })),
  };
}

/**
 * Dismisses a comment's flags (a moderator found nothing wrong): they leave the queue's "flagged"
 * and stay listed as dismissed. Logged and emitted as moderation.action `dismiss_flags`; with no
 * flag waiting, nothing changes and nothing is emitted.
 */
export async function dismissFlags(db: Db, moderator: Moderator, comment: CommentRow, site: Site, reason: string | null): Promise<ModerationResult> {
  const result = await withEvents(db, async (trx) => {
    // Taken first, as a flag takes it to count itself: a flag committed meanwhile is dismissed or counted, never lost.
    await lockRow(db.dialect, trx, 'comments', comment.id);
    const dismissedAt = nowIso();
    const dismissed = await trx
      .updateTable('flags')
      .set({ dismissed_at: dismissedAt })
      .where('comment_id', '=', comment.id)
      .where('dismissed_at', 'is', null)
      .executeTakeFirst();
    const row = await trx.updateTable('comments').set({ flag_count: 0 }).where('id', '=', comment.id).returningAll().executeTakeFirstOrThrow();
    if (Number(dismissed.numUpdatedRows) > 0) {
      const undo = { before: { status: row.status, moderation_status: row.moderation_status }, dismissed_at: dismissedAt };
      await recordModeration(trx, site, moderator, 'dismiss_flags', reason, row, undo);
    }
    return moderationResult(row, 'dismiss_flags');
  });
  db.changes.queueChanged(site.id);
  return result;
}
