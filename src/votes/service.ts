import type { Transaction } from 'kysely';
import { requireCredential, type Caller } from '../auth/caller.ts';
import { visibleComment } from '../comments/service.ts';
import type { Db } from '../db/connect.ts';
import { forUpdate } from '../db/dialect.ts';
import type { Database } from '../db/schema.ts';
import { AppError, invalid } from '../errors.ts';
import { assertNotBanned } from '../moderation/bans.ts';
import { wilsonLowerBound } from './wilson.ts';

export type VoteType = 'up' | 'down';

export interface VoteResult {
  upvotes: number;
  downvotes: number;
  user_vote: VoteType | null;
  liked_by_site_owner: boolean;
}

export interface ReactionResult {
  reaction_counts: Record<string, number>;
  user_reaction: string | null;
}

/**
 * The comment a vote or reaction applies to, locked for the rest of the transaction so concurrent
 * votes on it serialise and counts stay exact. 404 if the caller cannot see it, 409 if deleted.
 */
async function actOnComment<T>(
  db: Db,
  caller: Caller,
  id: string,
  work: (trx: Transaction<Database>, locked: Counts, actor: string, moderator: boolean, reactions: string[]) => Promise<T>,
): Promise<T> {
  requireCredential(caller);
  const { comment, site, viewer } = await visibleComment(db, caller, id);
  if (viewer.ref === null) throw new AppError('not_found', `No comment ${id}`);
  const actor = viewer.ref;
  const result = await db.kysely.transaction().execute(async (trx) => {
    await assertNotBanned(trx, site.id, actor);
    const locked = await forUpdate(db.dialect, trx.selectFrom('comments').select(['is_deleted', 'upvotes', 'downvotes']).where('id', '=', id)).executeTakeFirstOrThrow();
    if (locked.is_deleted) throw new AppError('conflict', 'The comment has been deleted');
    return work(trx, { upvotes: Number(locked.upvotes), downvotes: Number(locked.downvotes) }, actor, viewer.moderator, site.reactions);
  });
  db.changes.threadChanged(site.id, comment.thread_url);
  return result;
}

interface Counts {
  upvotes: number;
  downvotes: number;
}

/** Sets (or with null removes) the caller's vote, adjusting the counters by the difference. */
export function setVote(db: Db, caller: Caller, id: string, vote: VoteType | null): Promise<VoteResult> {
  return actOnComment(db, caller, id, async (trx, locked, actor, moderator) => {
    const previous = await trx.selectFrom('votes').select('value').where('comment_id', '=', id).where('voter_ref', '=', actor).executeTakeFirst();
    const before = previous?.value ?? 0;
    const after = vote === 'up' ? 1 : vote === 'down' ? -1 : 0;
    // The comment row is locked, so the counts read with the lock are the ones to adjust.
    const upvotes = locked.upvotes + Number(after === 1) - Number(before === 1);
    const downvotes = locked.downvotes + Number(after === -1) - Number(before === -1);
    if (before !== after) {
      if (after === 0) {
        await trx.deleteFrom('votes').where('comment_id', '=', id).where('voter_ref', '=', actor).execute();
      } else {
        await trx
          .insertInto('votes')
          .values({ comment_id: id, voter_ref: actor, value: after, by_moderator: moderator ? 1 : 0, created_at: new Date().toISOString() })
          .onConflict((oc) => oc.columns(['comment_id', 'voter_ref']).doUpdateSet({ value: after, by_moderator: moderator ? 1 : 0 }))
          .execute();
      }
      await trx
        .updateTable('comments')
        .set({ upvotes, downvotes, score: upvotes - downvotes, wilson: wilsonLowerBound(upvotes, downvotes) })
        .where('id', '=', id)
        .execute();
    }
    const liked = await trx
      .selectFrom('votes')
      .select('comment_id')
      .where('comment_id', '=', id)
      .where('value', '=', 1)
      .where('by_moderator', '=', 1)
      .executeTakeFirst();
    return { upvotes, downvotes, user_vote: after === 1 ? 'up' : after === -1 ? 'down' : null, liked_by_site_owner: liked !== undefined };
  });
}

/** Toggles the caller's reaction: the same type again removes it, another type replaces it. */
export function toggleReaction(db: Db, caller: Caller, id: string, type: string): Promise<ReactionResult> {
  return actOnComment(db, caller, id, async (trx, _locked, actor, _moderator, allowed) => {
    if (!allowed.includes(type)) throw invalid('body/reaction_type', `must be one of ${allowed.join(', ')}`);
    const previous = await trx.selectFrom('reactions').select('type').where('comment_id', '=', id).where('reactor_ref', '=', actor).executeTakeFirst();
    let mine: string | null = type;
    if (previous?.type === type) {
      await trx.deleteFrom('reactions').where('comment_id', '=', id).where('reactor_ref', '=', actor).execute();
      mine = null;
    } else {
      await trx
        .insertInto('reactions')
        .values({ comment_id: id, reactor_ref: actor, type, created_at: new Date().toISOString() })
        .onConflict((oc) => oc.columns(['comment_id', 'reactor_ref']).doUpdateSet({ type }))
        .execute();
    }
    const rows = await trx
      .selectFrom('reactions')
      .select((eb) => ['type', eb.fn.countAll<number>().as('n')])
      .where('comment_id', '=', id)
      .groupBy('type')
      .orderBy('type')
      .execute();
    const counts = Object.fromEntries(rows.map((row) => [row.type, Number(row.n)]));
    await trx.updateTable('comments').set({ reaction_counts: JSON.stringify(counts) }).where('id', '=', id).execute();
    return { reaction_counts: counts, user_reaction: mine };
  });
}
