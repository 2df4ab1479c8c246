import { sql, type Kysely, type Transaction } from 'kysely';
import { canAccessSite, isModerator, requireCredential, type Caller } from '../auth/caller.ts';
import { hiddenInChain } from '../comments/repository.ts';
import type { Db } from '../db/connect.ts';
import { lockRow, toCount } from '../db/dialect.ts';
import { preparedQuery } from '../db/prepared.ts';
import type { Database, Flag } from '../db/schema.ts';
import { AppError, invalid } from '../errors.ts';
import { bannedError, isBanned } from '../moderation/bans.ts';
import { wilsonLowerBound } from './wilson.ts';
import { nowIso } from '../clock.ts';
import { countsChangeStamp } from '../live/record.ts';
import { guestVotingOn, voterRefOf } from '../spam/guest-votes.ts';

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

/** What every vote and reaction reads of its comment, beside what each reads of its own. */
interface Target {
  site_id: string;
  account_id: string;
  thread_url: string;
  thread_id: string;
  status: string;
  moderation_status: string | null;
  parent_id: string | null;
  is_deleted: number;
  banned: number | boolean;
  hidden: number | string;
  counts_changed_at: string | null;
}

/**
 * What a vote or reaction reads of its comment for the caller (site, thread, ban, visibility); each
 * adds its own columns, so one statement reads all the change needs. The statements of both are
 * compiled once (see db/prepared.ts): building them had cost more CPU than SQLite spent on them.
 */
function targetQuery(db: Kysely<Database>, id: string, actor: string, now: string) {
  return db
    .selectFrom('comments as c')
    .innerJoin('threads as t', 't.id', 'c.thread_id')
    .innerJoin('sites as s', 's.id', 'c.site_id')
    .select(['c.site_id', 's.account_id', 't.url_key as thread_url', 'c.thread_id', 'c.status', 'c.moderation_status', 'c.parent_id', 'c.is_deleted', 'c.counts_changed_at'])
    .select([isBanned(sql.ref('c.site_id'), actor, now).as('banned'), hiddenInChain({ ref: actor, moderator: false }, id).as('hidden')])
    .where('c.id', '=', id);
}

/**
 * Applies a vote or reaction to a comment locked for the rest of the transaction, so concurrent ones
 * serialise and counts stay exact: the read comes after the lock. 404 if the caller cannot see the
 * comment, 403 if banned from its site, 409 if it is deleted.
 */
async function actOnComment<R extends Target, T>(
  db: Db,
  caller: Caller,
  id: string,
  read: (trx: Transaction<Database>, actor: string) => Promise<R | undefined>,
  work: (trx: Transaction<Database>, target: R, actor: string, moderator: boolean) => Promise<T>,
): Promise<T> {
  // A guest votes where the comment's site lets guests vote; anywhere else it needs a credential.
  if (caller.kind === 'public' && !(await guestVotingOn(db.kysely, id))) requireCredential(caller);
  const actor = voterRefOf(caller);
  const { target, result } = await db.kysely.transaction().execute(async (trx) => {
    await lockRow(db.dialect, trx, 'comments', id);
    const target = await read(trx, actor);
    const site = target && { id: target.site_id, accountId: target.account_id };
    if (!site || (caller.kind !== 'public' && !canAccessSite(caller, site))) throw new AppError('not_found', `No comment ${id}`);
    const moderator = isModerator(caller, site);
    if (!moderator && toCount(target.hidden) > 0) throw new AppError('not_found', `No comment ${id}`);
    if (Number(target.banned) === 1) throw bannedError();
    if (target.is_deleted) throw new AppError('conflict', 'The comment has been deleted');
    return { target, result: await work(trx, target, actor, moderator) };
  });
  db.changes.threadChanged(target.site_id, target.thread_url);
  return result;
}

const voteTarget = preparedQuery((db, _shape: null, id: string, actor: string, now: string) =>
  targetQuery(db, id, actor, now)
    .leftJoin('votes as v', (join) => join.onRef('v.comment_id', '=', 'c.id').on('v.voter_ref', '=', actor))
    .select(['c.upvotes', 'c.downvotes', 'v.value as previous', 'v.by_moderator as previous_by_moderator'])
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('votes as o')
            .select('o.comment_id')
            .whereRef('o.comment_id', '=', 'c.id')
            // Literals, not parameters: SQLite matches them to the partial index votes_owner_likes
            // when preparing; with parameters it would prepare the statement again on every run.
            .where('o.value', '=', eb.lit(1))
            .where('o.by_moderator', '=', eb.lit(1))
            .where('o.voter_ref', '<>', actor),
        )
        .as('liked_by_others'),
    )
    .compile(),
);

/**
 * The writes by primary key are planned once per connection (see db/prepared.ts): their plan is the
 * key's index whatever the values, and parsing and planning them again cost PostgreSQL's CPU on every
 * vote. The reads with their visibility walk are not: a generic plan of those was far worse.
 */
const PLAN_ONCE = { planOnce: true };

const deleteVote = preparedQuery((db, _shape: null, commentId: string, voterRef: string) =>
  db.deleteFrom('votes').where('comment_id', '=', commentId).where('voter_ref', '=', voterRef).compile(),
  PLAN_ONCE,
);

const upsertVote = preparedQuery((db, _shape: null, commentId: string, voterRef: string, value: number, byModerator: Flag, createdAt: string) =>
  db
    .insertInto('votes')
    .values({ comment_id: commentId, voter_ref: voterRef, value, by_moderator: byModerator, created_at: createdAt })
    .onConflict((oc) => oc.columns(['comment_id', 'voter_ref']).doUpdateSet({ value, by_moderator: byModerator }))
    .compile(),
  PLAN_ONCE,
);

/** The stamp that tells streams of new counts (see countsChangeStamp); null leaves it. */
const stamped = (changedAt: string | null) => sql<string | null>`coalesce(${changedAt}, counts_changed_at)`;

const setVoteCounts = preparedQuery((db, _shape: null, id: string, upvotes: number, downvotes: number, score: number, wilson: number, changedAt: string | null) =>
  db.updateTable('comments').set({ upvotes, downvotes, score, wilson, counts_changed_at: stamped(changedAt) }).where('id', '=', id).compile(),
  PLAN_ONCE,
);

/** Sets (or with null removes) the caller's vote, adjusting the counters by the difference. */
export function setVote(db: Db, caller: Caller, id: string, vote: VoteType | null): Promise<VoteResult> {
  const read = async (trx: Transaction<Database>, actor: string) => (await voteTarget(trx, null, id, actor, nowIso()))[0];
  return actOnComment(db, caller, id, read, async (trx, target, actor, moderator) => {
    const before = target.previous ?? 0;
    const after = vote === 'up' ? 1 : vote === 'down' ? -1 : 0;
    // The comment row is locked, so the counts read with the lock are the ones to adjust.
    const upvotes = Number(target.upvotes) + Number(after === 1) - Number(before === 1);
    const downvotes = Number(target.downvotes) + Number(after === -1) - Number(before === -1);
    if (before !== after) {
      if (after === 0) await deleteVote(trx, null, id, actor);
      else await upsertVote(trx, null, id, actor, after, moderator ? 1 : 0, nowIso());
      const changedAt = await countsChangeStamp(trx, { id, ...target }, target.counts_changed_at);
      await setVoteCounts(trx, null, id, upvotes, downvotes, upvotes - downvotes, wilsonLowerBound(upvotes, downvotes), changedAt);
    }
    // The caller's own upvote counts as the site owner's when it was (or is now) cast as a moderator.
    const mineLiked = after === 1 && (before === after ? target.previous_by_moderator === 1 : moderator);
    return {
      upvotes,
      downvotes,
      user_vote: after === 1 ? 'up' : after === -1 ? 'down' : null,
      liked_by_site_owner: mineLiked || Number(target.liked_by_others) === 1,
    };
  });
}

const reactionTarget = preparedQuery((db, _shape: null, id: string, actor: string, now: string) =>
  targetQuery(db, id, actor, now)
    .leftJoin('reactions as r', (join) => join.onRef('r.comment_id', '=', 'c.id').on('r.reactor_ref', '=', actor))
    .select(['s.reactions', 'r.type as previous'])
    .compile(),
);

const deleteReaction = preparedQuery((db, _shape: null, commentId: string, reactorRef: string) =>
  db.deleteFrom('reactions').where('comment_id', '=', commentId).where('reactor_ref', '=', reactorRef).compile(),
  PLAN_ONCE,
);

const upsertReaction = preparedQuery((db, _shape: null, commentId: string, reactorRef: string, type: string, createdAt: string) =>
  db
    .insertInto('reactions')
    .values({ comment_id: commentId, reactor_ref: reactorRef, type, created_at: createdAt })
    .onConflict((oc) => oc.columns(['comment_id', 'reactor_ref']).doUpdateSet({ type }))
    .compile(),
  PLAN_ONCE,
);

const reactionCounts = preparedQuery((db, _shape: null, commentId: string) =>
  db
    .selectFrom('reactions')
    .select((eb) => ['type', eb.fn.countAll<number>().as('n')])
    .where('comment_id', '=', commentId)
    .groupBy('type')
    .orderBy('type')
    .compile(),
);

const setReactionCounts = preparedQuery((db, _shape: null, id: string, reactionCounts: string, changedAt: string | null) =>
  db.updateTable('comments').set({ reaction_counts: reactionCounts, counts_changed_at: stamped(changedAt) }).where('id', '=', id).compile(),
  PLAN_ONCE,
);

/** Toggles the caller's reaction: the same type again removes it, another type replaces it. */
export function toggleReaction(db: Db, caller: Caller, id: string, type: string): Promise<ReactionResult> {
  const read = async (trx: Transaction<Database>, actor: string) => (await reactionTarget(trx, null, id, actor, nowIso()))[0];
  return actOnComment(db, caller, id, read, async (trx, target, actor) => {
    const allowed = JSON.parse(target.reactions) as string[];
    if (!allowed.includes(type)) throw invalid('body/reaction_type', `must be one of ${allowed.join(', ')}`);
    let mine: string | null = type;
    if (target.previous === type) {
      await deleteReaction(trx, null, id, actor);
      mine = null;
    } else {
      await upsertReaction(trx, null, id, actor, type, nowIso());
    }
    const rows = await reactionCounts(trx, null, id);
    const counts = Object.fromEntries(rows.map((row) => [row.type, Number(row.n)]));
    await setReactionCounts(trx, null, id, JSON.stringify(counts), await countsChangeStamp(trx, { id, ...target }, target.counts_changed_at));
    return { reaction_counts: counts, user_reaction: mine };
  });
}
