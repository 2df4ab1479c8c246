import type { Insertable, Kysely } from 'kysely';
import type { CommentRow } from '../comments/view.ts';
import type { Database, NotificationJobTable } from '../db/schema.ts';
import type { ModerationAction } from '../moderation/action-names.ts';
import { notificationJobRow, queueNotificationJob, type NotificationJob } from './jobs.ts';

/** What a moderation notice tells its reader was decided. */
export type NoticeAction = 'held' | 'approved' | 'removed' | 'spam' | 'contest_upheld';

type Decided = Pick<CommentRow, 'id' | 'site_id' | 'author_ref'>;

/** A comment of one of the site's readers (not a guest's, an API key's or a staff member's): only readers have notifications. */
function byReader(comment: Decided): boolean {
  return comment.author_ref?.startsWith('usr_') ?? false;
}

/**
 * A comment the public now sees (posted, approved, unhidden, or edited to mention someone new):
 * its parent's author, the readers it mentions and the thread's followers are told, by the worker.
 */
export async function queuePublished(trx: Kysely<Database>, comment: Decided): Promise<void> {
  await queueNotificationJob(trx, published(comment));
}

/** queuePublished's row, for a new comment's own insert statement to write (comments/repository.ts insertedFirst). */
export function publishedJob(trx: Kysely<Database>, comment: Decided): Insertable<NotificationJobTable> {
  return notificationJobRow(trx, published(comment));
}

function published(comment: Decided): NotificationJob {
  return { kind: 'published', siteId: comment.site_id, commentId: comment.id };
}

/**
 * A decision on a reader's comment: its author is told, with the moderator's reason. `logId` names
 * the decision (its moderation log entry), so each one tells its reader once.
 */
export async function queueDecisionNotice(trx: Kysely<Database>, comment: Decided, action: NoticeAction, reason: string | null, logId: string): Promise<void> {
  if (!byReader(comment)) return;
  await queueNotificationJob(trx, { kind: 'decision', siteId: comment.site_id, commentId: comment.id, data: { action, reason, log_id: logId } });
}

/**
 * A comment held for approval, on arrival or by an edit: its author learns it waits. No log entry
 * records a hold, so the hold is named by the comment and the moment its held version was written.
 */
export async function queueHeldNotice(trx: Kysely<Database>, comment: Decided & Pick<CommentRow, 'updated_at'>): Promise<void> {
  await queueDecisionNotice(trx, comment, 'held', null, `held:${comment.id}:${comment.updated_at}`);
}

/**
 * The notice a moderator's action owes the comment's author: approving a comment the public did not
 * see (held, removed, marked spam), removing it, marking it spam. Shadow bans are never told.
 */
export function noticeOf(action: ModerationAction, before: Pick<CommentRow, 'status'>): NoticeAction | null {
  if (action === 'approve') return before.status === 'published' ? null : 'approved';
  if (action === 'remove') return 'removed';
  if (action === 'spam') return 'spam';
  return null;
}
