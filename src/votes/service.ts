import {
  PostgresAdapter,
  sql,
  type CompiledQuery,
  type DeleteQueryBuilder,
  type InsertQueryBuilder,
  type Kysely,
  type QueryCreator,
  type Transaction,
  type UpdateQueryBuilder,
  type UpdateResult,
} from 'kysely';
import { canAccessSite, isModerator, requireCredential, type Caller } from '../auth/caller.ts';
import { hiddenInChain } from '../comments/repository.ts';
import type { Db } from '../db/connect.ts';
import { dialectOfDb, lockRow, toCount } from '../db/dialect.ts';
import { preparedQuery } from '../db/prepared.ts';
import type { Database, Flag } from '../db/schema.ts';
import { AppError, invalid } from '../errors.ts';
import { bannedError, isBanned } from '../moderation/bans.ts';
import { wilsonLowerBound } from './wilson.ts';
import { nowIso } from '../clock.ts';
import { countsChangeStamp } from '../live/record.ts';
import { PUBLIC_VIEWER } from '../comments/visibility.ts';
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
  /** How many of the comment and its ancestors the public may not see: 0 when it sees the comment. */
  public_hidden: number | string;
  counts_changed_at: string | null;
}

/**
 * What a vote or reaction reads of its comment for the caller (site, thread, ban, visibility, and
 * whether the public sees it, for the counts stamp); each adds its own columns, so one statement
 * reads all the change needs. The statements of both are compiled once (see db/prepared.ts):
 * building them had cost more CPU than SQLite spent on them; and on PostgreSQL they are planned once
 * per connection, as planning them had cost more than running them (their visibility walks are
 * primary-key lookups, whatever the values).
 */
function targetQuery(db: Kysely<Database>, id: string, actor: string, now: string) {
  return db
    .selectFrom('comments as c')
    .innerJoin('threads as t', 't.id', 'c.thread_id')
    .innerJoin('sites as s', 's.id', 'c.site_id')
    .select(['c.site_id', 's.account_id', 't.url_key as thread_url', 'c.thread_id', 'c.status', 'c.moderation_status', 'c.parent_id', 'c.is_deleted', 'c.counts_changed_at'])
    .select([isBanned(sql.ref('c.site_id'), actor, now).as('banned'), hiddenInChain(dialectOfDb(db), { ref: actor, moderator: false }, id).as('hidden'), hiddenInChain(dialectOfDb(db), PUBLIC_VIEWER, id).as('public_hidden')])
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

/**
 * Every statement of a vote or reaction is planned once per connection (see db/prepared.ts): each is
 * a lookup or write by primary key, whose plan is the key's index whatever the values, and planning
 * the read anew cost PostgreSQL more CPU than the rest of the vote (0.77 ms a call, by
 * pg_stat_statements). The read's walks up the chain are fenced for that (parentsInChain).
 */
const PLAN_ONCE = { planOnce: true };

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
  PLAN_ONCE,
);

/** The stamp that tells streams of new counts (see countsChangeStamp); null leaves it. */
const stamped = (changedAt: string | null) => sql<string | null>`coalesce(${changedAt}, counts_changed_at)`;

/** Which statement of a mark's change: the whole on PostgreSQL; on SQLite the mark's write, then the counts. */
type Part = 'write' | 'counts';

/** A vote's or reaction's insert or delete, returning its comment's id (as a CTE needs something to return). */
type MarkWrite = InsertQueryBuilder<Database, 'votes', { comment_id: string }> | InsertQueryBuilder<Database, 'reactions', { comment_id: string }> | DeleteQueryBuilder<Database, 'votes' | 'reactions', { comment_id: string }>;

/**
 * A mark's write (a vote's or a reaction's) and its comment's new counts. On PostgreSQL one
 * statement, the write in a CTE of the update: each statement there is a round trip, and a write
 * waits for them with its comment's row locked. SQLite cannot write in a CTE, and a statement there
 * costs no round trip: there the two run one after the other (see runMarkAndCounts).
 */
function markAndCounts(
  db: Kysely<Database>,
  part: Part,
  write: MarkWrite,
  counts: (db: QueryCreator<Database>) => UpdateQueryBuilder<Database, 'comments', 'comments', UpdateResult>,
): CompiledQuery {
  // The update reads nothing of the CTE: PostgreSQL runs a write in WITH to completion all the same.
  if (db.getExecutor().adapter instanceof PostgresAdapter) return counts(db.with('marked', () => write) as unknown as QueryCreator<Database>).compile();
  return part === 'write' ? write.compile() : counts(db).compile();
}

async function runMarkAndCounts<Values extends unknown[]>(
  trx: Transaction<Database>,
  query: (db: Kysely<Database>, part: Part, ...values: Values) => Promise<unknown>,
  ...values: Values
): Promise<void> {
  await query(trx, 'write', ...values);
  if (!(trx.getExecutor().adapter instanceof PostgresAdapter)) await query(trx, 'counts', ...values);
}

type VoteCounts = [upvotes: number, downvotes: number, score: number, wilson: number, changedAt: string | null];

const setVoteCounts = (id: string, [upvotes, downvotes, score, wilson, changedAt]: VoteCounts) => (db: QueryCreator<Database>) =>
  db.updateTable('comments').set({ upvotes, downvotes, score, wilson, counts_changed_at: stamped(changedAt) }).where('id', '=', id);

const deleteVote = preparedQuery(
  (db, part: Part, commentId: string, voterRef: string, ...counts: VoteCounts) =>
    markAndCounts(db, part, db.deleteFrom('votes').where('comment_id', '=', commentId).where('voter_ref', '=', voterRef).returning('comment_id'), setVoteCounts(commentId, counts)),
  PLAN_ONCE,
);

const upsertVote = preparedQuery(
  (db, part: Part, commentId: string, voterRef: string, value: number, byModerator: Flag, createdAt: string, ...counts: VoteCounts) =>
    markAndCounts(
      db,
      part,
      db
        .insertInto('votes')
        .values({ comment_id: commentId, voter_ref: voterRef, value, by_moderator: byModerator, created_at: createdAt })
        .onConflict((oc) => oc.columns(['comment_id', 'voter_ref']).doUpdateSet({ value, by_moderator: byModerator }))
        .returning('comment_id'),
      setVoteCounts(commentId, counts),
    ),
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
      const counts: VoteCounts = [upvotes, downvotes, upvotes - downvotes, wilsonLowerBound(upvotes, downvotes), changeStamp(target)];
      if (after === 0) await runMarkAndCounts(trx, deleteVote, id, actor, ...counts);
      else await runMarkAndCounts(trx, upsertVote, id, actor, after, moderator ? 1 : 0, nowIso(), ...counts);
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

/** The counts stamp of a change to the target's counts (see countsChangeStamp). */
const changeStamp = (target: Target) => countsChangeStamp(toCount(target.public_hidden) === 0, target.counts_changed_at);

const reactionTarget = preparedQuery(
  (db, _shape: null, id: string, actor: string, now: string) =>
    targetQuery(db, id, actor, now)
      .leftJoin('reactions as r', (join) => join.onRef('r.comment_id', '=', 'c.id').on('r.reactor_ref', '=', actor))
      .select(['s.reactions', 'c.reaction_counts', 'r.type as previous'])
      .compile(),
  PLAN_ONCE,
);

const setReactionCounts = (id: string, reactionCounts: string, changedAt: string | null) => (db: QueryCreator<Database>) =>
  db.updateTable('comments').set({ reaction_counts: reactionCounts, counts_changed_at: stamped(changedAt) }).where('id', '=', id);

const deleteReaction = preparedQuery(
  (db, part: Part, commentId: string, reactorRef: string, reactionCounts: string, changedAt: string | null) =>
    markAndCounts(db, part, db.deleteFrom('reactions').where('comment_id', '=', commentId).where('reactor_ref', '=', reactorRef).returning('comment_id'), setReactionCounts(commentId, reactionCounts, changedAt)),
  PLAN_ONCE,
);

const upsertReaction = preparedQuery(
  (db, part: Part, commentId: string, reactorRef: string, type: string, createdAt: string, reactionCounts: string, changedAt: string | null) =>
    markAndCounts(
      db,
      part,
      db
        .insertInto('reactions')
        .values({ comment_id: commentId, reactor_ref: reactorRef, type, created_at: createdAt })
        .onConflict((oc) => oc.columns(['comment_id', 'reactor_ref']).doUpdateSet({ type }))
        .returning('comment_id'),
      setReactionCounts(commentId, reactionCounts, changedAt),
    ),
  PLAN_ONCE,
);

/**
 * The comment's reaction counts after the caller's reaction moved from `previous` to `next` (either
 * null for none): the counts read under the comment's row lock, adjusted by the difference, as votes
 * are; types in order, none at zero.
 */
function movedReactionCounts(counts: Record<string, number>, previous: string | null, next: string | null): Record<string, number> {
  const moved = { ...counts };
  if (previous !== null) moved[previous] = (moved[previous] ?? 0) - 1;
  if (next !== null) moved[next] = (moved[next] ?? 0) + 1;
  return Object.fromEntries(Object.entries(moved).filter(([, n]) => n > 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Toggles the caller's reaction: the same type again removes it, another type replaces it. */
export function toggleReaction(db: Db, caller: Caller, id: string, type: string): Promise<ReactionResult> {
  const read = async (trx: Transaction<Database>, actor: string) => (await reactionTarget(trx, null, id, actor, nowIso()))[0];
  return actOnComment(db, caller, id, read, async (trx, target, actor) => {
    const allowed = JSON.parse(target.reactions) as string[];
    if (!allowed.includes(type)) throw invalid('body/reaction_type', `must be one of ${allowed.join(', ')}`);
    const mine = target.previous === type ? null : type;
    const counts = movedReactionCounts(JSON.parse(target.reaction_counts) as Record<string, number>, target.previous, mine);
    const stamp = changeStamp(target);
    if (mine === null) await runMarkAndCounts(trx, deleteReaction, id, actor, JSON.stringify(counts), stamp);
    else await runMarkAndCounts(trx, upsertReaction, id, actor, type, nowIso(), JSON.stringify(counts), stamp);
    return { reaction_counts: counts, user_reaction: mine };
  });
}
