import type { Transaction } from 'kysely';
import type { Caller } from '../auth/caller.ts';
import { nowIso } from '../clock.ts';
import { refreshListing } from '../comments/listing.ts';
import type { CommentRow } from '../comments/view.ts';
import type { Db } from '../db/connect.ts';
import type { Database } from '../db/schema.ts';
import { forUpdate, lockAuthor } from '../db/dialect.ts';
import { AppError } from '../errors.ts';
import { withEvents } from '../events/record.ts';
import { CLASSIFIER_ACTIONS, unlearn } from '../spam/classifier/learning.ts';
import { recordCommentChange, recordRepliesShown, seenByPublic } from '../live/record.ts';
import type { Site } from '../sites/repository.ts';
import { banAuthor, liftShadowBan } from './bans.ts';
import { eachComment } from './bulk.ts';
import { moderationResult, recordModeration, type Moderator, type ModerationResult } from './service.ts';
import { commentAfter, type UndoState } from './undo-facts.ts';

/** How long a moderator may take an action back. */
export const UNDO_WINDOW_MS = 60_000;

const cannot = (detail: string) => new AppError('conflict', detail);

/**
 * Takes back, for each comment, the caller's own last moderation action on it, when it was made in
 * the last 60 s and nothing changed the comment since: its status, moderation status and flags are
 * as before, a shadow ban the action made is lifted (one it lifted is made again). Each id in its
 * own transaction, answered per id as bulk actions are; logged and emitted as action `undo`.
 */
export function undoMany(db: Db, caller: Caller, ids: string[]) {
  return eachComment(db, caller, ids, (moderator, comment, site) => undoLast(db, moderator, comment, site));
}

async function undoLast(db: Db, moderator: Moderator, comment: CommentRow & { thread_url: string }, site: Site): Promise<ModerationResult> {
  const { result, reach } = await withEvents(db, async (trx) => {
    if (comment.author_ref !== null) await lockAuthor(db.dialect, trx, site.id, comment.author_ref);
    // Every action on the comment takes this lock first: its last log entry stays the last until commit.
    const current = await forUpdate(db.dialect, trx.selectFrom('comments').selectAll().where('id', '=', comment.id)).executeTakeFirstOrThrow();
    const last = await trx
      .selectFrom('moderation_log')
      .select(['action', 'moderator_ref', 'created_at', 'undo'])
      .where('comment_id', '=', comment.id)
      // The classifier's entries (its hold, whether a moderator agreed) are not moderators' actions.
      .where('action', 'not in', CLASSIFIER_ACTIONS)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!last) throw cannot(`No moderation action on comment ${comment.id} to undo`);
    if (last.moderator_ref !== moderator.id) throw cannot(`The last action on comment ${comment.id} (${last.action}) is another moderator's`);
    if (last.action === 'undo') throw cannot(`The last action on comment ${comment.id} is undone already`);
    if (last.undo === null) throw cannot(`The last action on comment ${comment.id} (${last.action}) cannot be undone`);
    if (Date.parse(last.created_at) < Date.now() - UNDO_WINDOW_MS) throw cannot(`The last action on comment ${comment.id} (${last.action}) is more than 60 s old`);
    const state = JSON.parse(last.undo) as UndoState;
    if (JSON.stringify(commentAfter(current)) !== JSON.stringify(state.after)) {
      throw cannot(`Comment ${comment.id} changed after the ${last.action}: it is not undone`);
    }
    const seenBefore = await seenByPublic(trx, current);
    const authorRef = current.author_ref;
    let authorChanged = false;
    if (state.ban_id !== undefined && authorRef !== null) {
      const ban = await trx.selectFrom('bans').select('id').where('id', '=', state.ban_id).executeTakeFirst();
      if (!ban) throw cannot(`The shadow ban the ${last.action} made was lifted since: it is not undone`);
      authorChanged = await liftShadowBan(trx, site.id, authorRef);
    }
    if (state.lifted_shadow_ban !== undefined && authorRef !== null) {
      authorChanged = (await banAuthor(trx, site, authorRef, 'shadow_ban', state.lifted_shadow_ban.reason, moderator.id)) !== null;
    }
    if (state.dismissed_at !== undefined) await undismiss(trx, comment.id, state.dismissed_at);
    const updated = await trx
      .updateTable('comments')
      .set({ ...state.before, updated_at: nowIso() })
      .where('id', '=', comment.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    const statusChanged = updated.status !== current.status || updated.moderation_status !== current.moderation_status;
    if (statusChanged) await refreshListing(trx, [updated.root_id]);
    const seenAfter = await recordCommentChange(trx, seenBefore, updated);
    if (!seenBefore && seenAfter) await recordRepliesShown(trx, updated);
    // What the decision taught the site's spam classifier is taken back with it.
    await unlearn(trx, site.id, comment.id);
    await recordModeration(trx, site, moderator, 'undo', null, updated);
    // A shadow ban made or lifted shows on every thread of the site; flags only in the queue.
    const reach = authorChanged ? 'site' : statusChanged ? 'thread' : 'queue';
    return { result: moderationResult(updated, 'undo'), reach };
  });
  if (reach === 'site') db.changes.siteChanged(site.id);
  else if (reach === 'thread') db.changes.threadChanged(site.id, comment.thread_url);
  else db.changes.queueChanged(site.id);
  return result;
}

/** Gives back the flags an action dismissed: they wait for a moderator again, and count. */
async function undismiss(trx: Transaction<Database>, commentId: string, dismissedAt: string): Promise<void> {
  await trx.updateTable('flags').set({ dismissed_at: null }).where('comment_id', '=', commentId).where('dismissed_at', '=', dismissedAt).executeTakeFirst();
  await trx
    .updateTable('comments')
    .set((eb) => ({ flag_count: eb.selectFrom('flags').select(eb.fn.countAll<number>().as('n')).where('comment_id', '=', commentId).where('dismissed_at', 'is', null) }))
    .where('id', '=', commentId)
    .execute();
}
