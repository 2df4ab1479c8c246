import type { Transaction } from 'kysely';
import { actorRef, canAccessSite, isModerator, requireCredential, type Caller } from '../auth/caller.ts';
import type { Db } from '../db/connect.ts';
import { forUpdate, lockAuthor } from '../db/dialect.ts';
import { AppError } from '../errors.ts';
import { recordEvent, withEvents } from '../events/record.ts';
import { recordCommentChange, recordRepliesShown, seenByPublic } from '../live/record.ts';
import { queueModerationMails } from '../mail/moderators.ts';
import { queueMentionMails } from '../mail/mentions.ts';
import { queueReplyMail } from '../mail/readers.ts';
import { newId } from '../ids.ts';
import { commentWithSite, visibleComment } from '../comments/service.ts';
import { eventComment, type CommentRow } from '../comments/view.ts';
import type { Database } from '../db/schema.ts';
import type { Site } from '../sites/repository.ts';
import { assertNotBanned, banAuthor, liftShadowBan, shadowBanOf } from './bans.ts';
import { undoColumn, type UndoFacts } from './undo-facts.ts';
import { refreshListing } from '../comments/listing.ts';
import { nowIso } from '../clock.ts';
import { clientKey } from '../ratelimits/client-key.ts';
import { learnFromDecision } from '../spam/classifier/learning.ts';
import { noticeOf, queueDecisionNotice, queuePublished } from '../notifications/hooks.ts';

import type { ModerationAction } from './action-names.ts';

export { MODERATION_ACTIONS, type ModerationAction } from './action-names.ts';

interface Target {
  status: string;
  moderation_status: string | null;
}

/** The state each action leads to (the contract's moderation table). */
function targetOf(action: ModerationAction, current: CommentRow): Target {
  switch (action) {
    case 'approve':
    case 'unhide':
      return { status: 'published', moderation_status: null };
    case 'remove':
      return { status: 'removed', moderation_status: 'removed' };
    case 'spam':
      return { status: 'spam', moderation_status: 'spam' };
    case 'shadow_ban':
      return { status: current.status, moderation_status: 'shadow_banned' };
  }
}

const SIDE_EVENT = { approve: 'comment.approved', remove: 'comment.rejected' } as const;

/** What the moderation log records: the actions, dismissing a comment's flags, pinning (comments/pins.ts), and undoing (undo.ts). */
export type LoggedAction = ModerationAction | 'dismiss_flags' | 'pin' | 'unpin' | 'undo';

export interface ModerationResult {
  id: string;
  action: LoggedAction;
  status: string;
  moderation_status: string | null;
  content: string | null;
  author_name: string;
}

/** Who moderates, as the log and moderation.action name them. */
export interface Moderator {
  id: string;
  name: string;
}

export function moderatorOf(caller: Caller): Moderator {
  requireCredential(caller);
  return { id: actorRef(caller)!, name: caller.kind === 'session' ? caller.userName : caller.name };
}

export async function moderateComment(
  db: Db,
  caller: Caller,
  id: string,
  action: ModerationAction,
  reason: string | null,
): Promise<ModerationResult> {
  requireCredential(caller);
  const { comment, site } = await commentWithSite(db, id);
  if (!canAccessSite(caller, site)) throw new AppError('not_found', `No comment ${id}`);
  // Within its own site a credential learns that the comment exists, so the answer is about the role.
  if (!isModerator(caller, site)) {
    throw new AppError('forbidden', 'Moderating needs a moderator or admin credential for this site');
  }
  return applyModeration(db, moderatorOf(caller), comment, site, action, reason);
}

/**
 * Writes an action to the moderation log and emits moderation.action (and, for approve and remove,
 * comment.approved / comment.rejected), in the transaction of the change. `undo`: what undoing it
 * restores (undo.ts), for the actions its moderator may take back. Returns the log entry's id.
 */
export async function recordModeration(
  trx: Transaction<Database>,
  site: Site,
  moderator: Moderator,
  action: LoggedAction,
  reason: string | null,
  row: CommentRow,
  undo: UndoFacts | null = null,
): Promise<string> {
  const threadUrl = (await trx.selectFrom('threads').select('url_key').where('id', '=', row.thread_id).executeTakeFirstOrThrow()).url_key;
  const comment = eventComment(row, threadUrl);
  const now = nowIso();
  const logId = newId('mod');
  await trx
    .insertInto('moderation_log')
    .values({ id: logId, site_id: site.id, comment_id: row.id, action, reason, moderator_ref: moderator.id, created_at: now, undo: undo && undoColumn(undo, row) })
    .execute();
  await recordEvent(trx, { accountId: site.accountId, siteId: site.id, type: 'moderation.action', data: { action, reason, moderator, comment } });
  if (action === 'approve' || action === 'remove') {
    await recordEvent(trx, { accountId: site.accountId, siteId: site.id, type: SIDE_EVENT[action], data: { comment } });
  }
  return logId;
}

/**
 * Applies an action to a comment the moderator may act on: the rules of the contract's moderation
 * table. `alongside` runs in the action's transaction, after it, with the log entry it wrote (null
 * when the action changed nothing): what an action settles (a contest) commits or fails with it.
 */
export async function applyModeration(
  db: Db,
  moderator: Moderator,
  comment: CommentRow & { thread_url: string },
  site: Site,
  action: ModerationAction,
  reason: string | null,
  alongside?: (trx: Transaction<Database>, logId: string | null) => Promise<void>,
): Promise<ModerationResult> {
  const id = comment.id;
  const { result, authorChanged } = await withEvents(db, async (trx) => {
    if (comment.author_ref !== null) await lockAuthor(db.dialect, trx, site.id, comment.author_ref);
    const current = await forUpdate(db.dialect, trx.selectFrom('comments').selectAll().where('id', '=', id)).executeTakeFirstOrThrow();
    const target = targetOf(action, current);
    const seenBefore = await seenByPublic(trx, current);
    const now = nowIso();
    const changed = current.status !== target.status || current.moderation_status !== target.moderation_status;
    let authorChanged = false;
    let logId: string | null = null;
    const undo: UndoFacts = { before: { status: current.status, moderation_status: current.moderation_status } };
    if (current.author_ref !== null && action === 'shadow_ban') {
      const ban = await banAuthor(trx, site, current.author_ref, 'shadow_ban', reason, moderator.id);
      if (ban !== null) undo.ban_id = ban.id;
      authorChanged = ban !== null;
    }
    if (current.author_ref !== null && action === 'unhide') {
      const lifted = await shadowBanOf(trx, site.id, current.author_ref);
      authorChanged = await liftShadowBan(trx, site.id, current.author_ref);
      if (lifted) undo.lifted_shadow_ban = { reason: lifted.reason };
    }
    const updated = changed
      ? await trx.updateTable('comments').set({ ...target, updated_at: now }).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
      : await trx.selectFrom('comments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    if (changed) await refreshListing(trx, [updated.root_id]);
    if (changed || authorChanged) {
      const seenAfter = await recordCommentChange(trx, seenBefore, updated);
      if (!seenBefore && seenAfter) {
        await recordRepliesShown(trx, updated);
        // A reply the public sees from now on (approved, unhidden): its parent's author may want a mail,
        // and the readers any comment mentions hear of it (each once: one mentioned before was mailed then).
        await queueReplyMail(trx, db.mail, updated);
        await queueMentionMails(trx, db.mail, updated);
        await queuePublished(trx, updated);
      }
      logId = await recordModeration(trx, site, moderator, action, reason, updated, undo);
      const notice = changed ? noticeOf(action, current) : null;
      if (notice !== null) await queueDecisionNotice(trx, updated, notice, reason, logId);
      await learnFromDecision(trx, site.id, moderator.id, action, reason, current);
    }
    await alongside?.(trx, logId);
    return { result: moderationResult(updated, action), authorChanged };
  });
  // A shadow ban or its lifting changes what the author's comments show everywhere on the site.
  if (authorChanged) db.changes.siteChanged(site.id);
  else db.changes.threadChanged(site.id, comment.thread_url);
  return result;
}

export function moderationResult(row: CommentRow, action: LoggedAction): ModerationResult {
  return {
    id: row.id,
    action,
    status: row.status,
    moderation_status: row.moderation_status,
    content: row.is_deleted ? null : row.content,
    author_name: row.author_name,
  };
}

/** Anyone, guests included, may flag a comment once; a repeat answers the same and emits nothing. */
export async function flagComment(db: Db, caller: Caller, id: string, reason: string | null) {
  const { comment, site, viewer } = await visibleComment(db, caller, id);
  // A credential that does not reach the site is another tenant's: it is never taken for a guest.
  if (caller.kind !== 'public' && viewer.ref === null) throw new AppError('not_found', `No comment ${id}`);
  if (comment.is_deleted) throw new AppError('conflict', 'A deleted comment cannot be flagged');
  // A guest is one flagger per client key, as for its limits: an IPv6 client is its /64.
  const flagger = viewer.ref ?? `ip:${clientKey(caller.ip)}`;
  const flagged = await withEvents(db, async (trx) => {
    await assertNotBanned(trx, site.id, viewer.ref);
    const inserted = await trx
      .insertInto('flags')
      .values({ comment_id: id, flagger_ref: flagger, reason, created_at: nowIso() })
      .onConflict((oc) => oc.columns(['comment_id', 'flagger_ref']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) {
      await trx.updateTable('comments').set((eb) => ({ flag_count: eb('flag_count', '+', 1) })).where('id', '=', id).execute();
      await queueModerationMails(trx, db.mail, site, comment, { why: 'flagged', flagger, reason });
      await recordEvent(trx, {
        accountId: site.accountId,
        siteId: site.id,
        type: 'comment.flagged',
        data: { comment: eventComment(comment, comment.thread_url), reason },
      });
    }
    return { comment_id: id, flagged: true };
  });
  db.changes.queueChanged(site.id);
  return flagged;
}
