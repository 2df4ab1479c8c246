import type { Transaction } from 'kysely';
import { actorRef, requireCredential, type Caller } from '../auth/caller.ts';
import { requireCapability, requireSiteCapability } from '../auth/management.ts';
import { nowIso } from '../clock.ts';
import { isVisible } from '../comments/repository.ts';
import { commentWithSite } from '../comments/service.ts';
import { cleanText } from '../comments/text.ts';
import { viewerFor } from '../comments/visibility.ts';
import type { Db } from '../db/connect.ts';
import { forUpdate, lockAuthor } from '../db/dialect.ts';
import type { Database } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import { applyModeration, moderatorOf } from '../moderation/service.ts';
import { queueNotificationJob } from '../notifications/jobs.ts';
import { findSite } from '../sites/repository.ts';
import { contestsByIds } from './list.ts';
import { MAX_CONTEST_MESSAGE, MAX_CONTEST_NOTE, type ContestOutcome } from './schemas.ts';

/** What the comment's status says was decided, and the log actions that decide it. */
const DECISION_OF: Record<string, { decision: 'removed' | 'spam' | 'held'; loggedAs: string[] }> = {
  removed: { decision: 'removed', loggedAs: ['remove'] },
  spam: { decision: 'spam', loggedAs: ['spam'] },
  pending: { decision: 'held', loggedAs: ['classifier_hold'] },
};

/**
 * A reader asks the moderators to look again at a decision on their own comment: removed, marked
 * spam, or held. One open contest per comment; a decision upheld once is not contested again (a new
 * decision on the comment may be). Another reader's comment is 404 where they cannot see it, 403 where they can.
 */
export async function contestDecision(db: Db, caller: Caller, commentId: string, rawMessage: string) {
  requireCredential(caller);
  if (caller.kind !== 'session') throw new AppError('forbidden', "Only the comment's author, signed in to the site, may contest a decision on it");
  const { comment, site } = await commentWithSite(db, commentId);
  if (comment.site_id !== caller.siteId) throw new AppError('not_found', `No comment ${commentId}`);
  if (comment.author_ref !== actorRef(caller)) {
    if (await isVisible(db.kysely, viewerFor(caller, site), commentId)) throw new AppError('forbidden', 'Only the comment\'s author may contest a decision on it');
    throw new AppError('not_found', `No comment ${commentId}`);
  }
  const message = cleanText('body/message', rawMessage, MAX_CONTEST_MESSAGE);
  return db.kysely.transaction().execute(async (trx) => {
    // Under the comment's lock, a decision made meanwhile or a second contest sent at once is seen.
    const current = await forUpdate(db.dialect, trx.selectFrom('comments').select(['status', 'is_deleted']).where('id', '=', commentId)).executeTakeFirstOrThrow();
    const decided = DECISION_OF[current.status];
    if (current.is_deleted || decided === undefined) throw new AppError('conflict', 'Only a comment that was removed, marked spam or held can be contested');
    const open = await trx.selectFrom('decision_contests').select('id').where('comment_id', '=', commentId).where('state', '=', 'open').executeTakeFirst();
    if (open) throw new AppError('conflict', `The decision on comment ${commentId} is contested already; the moderators have not answered yet`);
    const entry = await trx
      .selectFrom('moderation_log')
      .select('id')
      .where('comment_id', '=', commentId)
      .where('action', 'in', decided.loggedAs)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    const logId = entry?.id ?? null;
    const upheld = await trx
      .selectFrom('decision_contests')
      .select('id')
      .where('comment_id', '=', commentId)
      .where('outcome', '=', 'upheld')
      .where('decision', '=', decided.decision)
      .where('decision_log_id', logId === null ? 'is' : '=', logId)
      .executeTakeFirst();
    if (upheld) throw new AppError('conflict', `The moderators looked again at the decision on comment ${commentId} and upheld it`);
    const row = {
      id: newId('dcn'),
      site_id: site.id,
      comment_id: commentId,
      user_id: caller.userId,
      message,
      decision: decided.decision,
      decision_log_id: logId,
      state: 'open' as const,
      created_at: nowIso(),
    };
    await trx.insertInto('decision_contests').values(row).execute();
    return { id: row.id, comment_id: commentId, state: row.state, created_at: row.created_at };
  });
}

/**
 * A moderator answers a contest. `reversed` approves the comment through the moderation service
 * (logged, with webhooks, as any approve, the note as its reason); `upheld` leaves it as it is.
 * Either way the reader is told (a `decision` notification job) in the transaction that resolves it.
 */
export async function resolveContest(db: Db, caller: Caller, id: string, outcome: ContestOutcome, rawNote: string | null) {
  requireCapability(caller, 'moderate');
  const contest = await db.kysely.selectFrom('decision_contests').select(['id', 'site_id', 'comment_id', 'state']).where('id', '=', id).executeTakeFirst();
  const site = contest && (await findSite(db.kysely, contest.site_id));
  if (!contest || !site) throw new AppError('not_found', `No contest ${id}`);
  requireSiteCapability(caller, site, 'moderate', `contest ${id}`);
  const note = rawNote === null || rawNote.trim() === '' ? null : cleanText('body/note', rawNote, MAX_CONTEST_NOTE);
  // Said before any change is tried; checked again under the lock, where it counts.
  if (contest.state !== 'open') throw alreadyResolved(id);
  const moderator = moderatorOf(caller);
  const settle = async (trx: Transaction<Database>, logId: string | null) => {
    const current = await forUpdate(db.dialect, trx.selectFrom('decision_contests').select('state').where('id', '=', id)).executeTakeFirstOrThrow();
    if (current.state !== 'open') throw alreadyResolved(id);
    await trx.updateTable('decision_contests').set({ state: 'resolved', outcome, note, resolved_by: moderator.id, resolved_at: nowIso() }).where('id', '=', id).execute();
    // A reinstatement is told as the approve it logged (the worker's cause is per log entry, so it is
    // told once however it is queued); a comment approved meanwhile logs nothing new: the contest names it.
    const data = outcome === 'reversed' ? { action: 'approved', reason: note, log_id: logId ?? id } : { action: 'contest_upheld', reason: note, log_id: id };
    await queueNotificationJob(trx, { kind: 'decision', siteId: site.id, commentId: contest.comment_id, data });
  };
  const { comment } = await commentWithSite(db, contest.comment_id);
  if (outcome === 'reversed') {
    await applyModeration(db, moderator, comment, site, 'approve', note, settle);
  } else {
    await db.kysely.transaction().execute(async (trx) => {
      // A reversal takes its author's lock before the contest's: so does an upholding, or the two at
      // once would each wait for the other (PostgreSQL ends one as a deadlock).
      if (comment.author_ref !== null) await lockAuthor(db.dialect, trx, site.id, comment.author_ref);
      await settle(trx, null);
    });
  }
  const [resolved] = await contestsByIds(db, [id]);
  return resolved;
}

const alreadyResolved = (id: string) => new AppError('conflict', `Contest ${id} is resolved already`);
