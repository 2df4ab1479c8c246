import { canAccessSite, isModerator, requireCredential, type Caller } from '../auth/caller.ts';
import { nowIso } from '../clock.ts';
import type { Db } from '../db/connect.ts';
import { forUpdate, lockRow, toCount } from '../db/dialect.ts';
import { AppError } from '../errors.ts';
import { withEvents } from '../events/record.ts';
import { recordCommentChange, seenByPublic } from '../live/record.ts';
import { moderatorOf, recordModeration } from '../moderation/service.ts';
import { MAX_PINNED } from './pinned.ts';
import { visibleComment } from './service.ts';
import { authorMarks, toView, type CommentView } from './view.ts';

/**
 * Pins a top-level comment to the head of its thread's lists (`pinned` true), or unpins it, for a
 * moderator of its site; pinning a pinned comment, or unpinning one that is not, changes nothing and
 * answers the same. A change is logged as moderation is (`pin`, `unpin`). 404 for a comment the
 * caller cannot see, 403 for a caller who does not moderate its site.
 */
export async function setPinned(db: Db, caller: Caller, id: string, pinned: boolean): Promise<CommentView> {
  requireCredential(caller);
  const { comment, site, viewer } = await visibleComment(db, caller, id);
  // Another tenant's credential sees the site as the public does, and learns nothing more from here.
  if (!canAccessSite(caller, site)) throw new AppError('not_found', `No comment ${id}`);
  if (!isModerator(caller, site)) throw new AppError('forbidden', 'Pinning needs a moderator or admin credential for this site');
  if (comment.parent_id !== null) throw new AppError('conflict', 'Only top-level comments can be pinned; this comment is a reply');
  const changed = await withEvents(db, async (trx) => {
    // Pins of one thread wait for each other here, so that the count below is the thread's.
    await lockRow(db.dialect, trx, 'threads', comment.thread_id);
    const current = await forUpdate(db.dialect, trx.selectFrom('comments').selectAll().where('id', '=', id)).executeTakeFirstOrThrow();
    if ((current.pinned_at !== null) === pinned) return current;
    if (pinned && current.is_deleted) throw new AppError('conflict', 'A deleted comment cannot be pinned');
    if (pinned) {
      const { n } = await trx
        .selectFrom('comments')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('thread_id', '=', current.thread_id)
        .where('pinned_at', 'is not', null)
        .executeTakeFirstOrThrow();
      if (toCount(n) >= MAX_PINNED) throw new AppError('conflict', `A thread holds at most ${MAX_PINNED} pinned comments: unpin one before pinning another`);
    }
    const before = await seenByPublic(trx, current);
    const updated = await trx
      .updateTable('comments')
      .set({ pinned_at: pinned ? nowIso() : null })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordCommentChange(trx, before, updated);
    await recordModeration(trx, site, moderatorOf(caller), pinned ? 'pin' : 'unpin', null, updated);
    return updated;
  });
  db.changes.threadChanged(site.id, comment.thread_url);
  return toView({ ...comment, ...changed }, comment.thread_url, authorMarks(viewer.ref));
}
