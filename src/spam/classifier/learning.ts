import type { Transaction } from 'kysely';
import { nowIso } from '../../clock.ts';
import type { CommentRow } from '../../comments/view.ts';
import type { Database } from '../../db/schema.ts';
import { newId } from '../../ids.ts';
import type { Label } from './model.ts';
import { learn } from './store.ts';

export { unlearn } from './store.ts';

/** Who the moderation log names for the classifier's own holds (moderation/actors.ts). */
export const CLASSIFIER_ACTOR = 'system:classifier';

/** The moderation log's entries of the classifier itself, beside moderators' actions. */
export const CLASSIFIER_ACTIONS = ['classifier_hold', 'classifier_agreed', 'classifier_disagreed'];

/** A removal says "spam" when its reason does: the dashboard's and API's reason is free text. */
const SPAM_REASON = /\bspam\b/i;

/**
 * What a moderator's decision teaches: approving or unhiding, that the comment is not spam;
 * marking it spam, removing it as spam or shadow-banning its author, that it is. A removal for
 * another reason (off topic, rude) says nothing about spam, and teaches nothing.
 */
export function lessonOf(action: string, reason: string | null): Label | null {
  if (action === 'approve' || action === 'unhide') return 'ham';
  if (action === 'spam' || action === 'shadow_ban') return 'spam';
  if (action === 'remove' && reason !== null && SPAM_REASON.test(reason)) return 'spam';
  return null;
}

const heldByClassifier = (comment: Pick<CommentRow, 'spam_reasons'>) =>
  comment.spam_reasons !== null && (JSON.parse(comment.spam_reasons) as Array<{ check: string }>).some((reason) => reason.check === 'classifier');

/**
 * Teaches the site's classifier a moderator's decision, in the transaction of the decision; only
 * moderators' decisions come here (readers' flags and votes never do). On a comment the classifier
 * held, the first decision that teaches is logged as the moderator agreeing (spam) or not (ham).
 * `comment` is the comment as it was before the decision.
 */
export async function learnFromDecision(
  trx: Transaction<Database>,
  siteId: string,
  moderatorRef: string,
  action: string,
  reason: string | null,
  comment: CommentRow,
): Promise<void> {
  const label = lessonOf(action, reason);
  if (label === null || comment.content === null || comment.is_deleted) return;
  await learn(trx, siteId, comment.id, comment.content, label);
  if (!heldByClassifier(comment)) return;
  const judged = await trx
    .selectFrom('moderation_log')
    .select('id')
    .where('comment_id', '=', comment.id)
    .where('site_id', '=', siteId)
    .where('action', 'in', ['classifier_agreed', 'classifier_disagreed'])
    .executeTakeFirst();
  if (judged) return;
  await insertLogEntry(trx, siteId, comment.id, label === 'spam' ? 'classifier_agreed' : 'classifier_disagreed', moderatorRef);
}

/** A new comment held: when the classifier is among the reasons, the moderation log says so, in the comment's transaction. */
export async function logClassifierHold(trx: Transaction<Database>, row: Pick<CommentRow, 'id' | 'site_id'>, reasons: Array<{ check: string }>): Promise<void> {
  if (reasons.some((reason) => reason.check === 'classifier')) await insertLogEntry(trx, row.site_id, row.id, 'classifier_hold', CLASSIFIER_ACTOR);
}

function insertLogEntry(trx: Transaction<Database>, siteId: string, commentId: string, action: string, moderatorRef: string) {
  return trx
    .insertInto('moderation_log')
    .values({ id: newId('mod'), site_id: siteId, comment_id: commentId, action, reason: null, moderator_ref: moderatorRef, created_at: nowIso() })
    .execute();
}
