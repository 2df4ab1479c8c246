import {
  PostgresAdapter,
  sql,
  type CompiledQuery,
  type DeleteQueryBuilder,
  type InsertQueryBuilder,
  type Kysely,
  type QueryCreator,
  type UpdateQueryBuilder,
} from 'kysely';
import { canAccessSite, isModerator, reachOf, requireCredential, type Caller, type Reach } from '../auth/caller.ts';
import { hiddenInChain } from '../comments/repository.ts';
import type { Db } from '../db/connect.ts';
import { dialectOfDb, movedJsonCounts, toCount, type DialectName } from '../db/dialect.ts';
import { preparedQuery } from '../db/prepared.ts';
import type { Database, Flag } from '../db/schema.ts';
import { AppError, invalid } from '../errors.ts';
import { bannedError, isBanned } from '../moderation/bans.ts';
import { wilsonLowerBoundSql } from './wilson.ts';
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
}

/**
 * What a vote or reaction reads of its comment for the caller (site, thread, ban, visibility, and
 * whether the public sees it, for the counts stamp); each adds its own columns, so one statement
 * reads all the change needs. The statements of both are compiled once (see db/prepared.ts):
 * building them had cost more CPU than SQLite spent on them (and see PLAN_ONCE).
 */
function targetQuery(db: Kysely<Database>, id: string, actor: string, now: string) {
  return db
    .selectFrom('comments as c')
    .innerJoin('comment_counts as n', 'n.comment_id', 'c.id')
    .innerJoin('threads as t', 't.id', 'c.thread_id')
    .innerJoin('sites as s', 's.id', 'c.site_id')
    .select(['c.site_id', 's.account_id', 't.url_key as thread_url', 'c.thread_id', 'c.status', 'c.moderation_status', 'c.parent_id', 'c.is_deleted'])
    .select([isBanned(sql.ref('c.site_id'), actor, now).as('banned'), hiddenInChain(dialectOfDb(db), { ref: actor, moderator: false }, id).as('hidden'), hiddenInChain(dialectOfDb(db), PUBLIC_VIEWER, id).as('public_hidden')])
    .where('c.id', '=', id);
}

/** What a mark's write answers when the caller's mark is no longer the one read: read again and retry. */
const MARK_CHANGED = Symbol('mark changed');
/** Only the caller's own requests at once can change their mark between read and write. */
const MOST_ATTEMPTS = 5;

/**
 * Applies a vote or reaction to a comment: reads it and the caller's mark, checks that the caller
 * may mark it (404 if they cannot see it, 403 if banned from its site, 409 if it is deleted), and
 * writes the mark with the comment's counts moved by the mark's change. No row is locked across
 * round trips: the write is guarded by the mark it replaces and moves the counts as it finds them
 * (see markAndCounts), so concurrent marks by others stay exact, and a caller's own concurrent
 * change of the same mark sends this one back to read again.
 */
async function actOnComment<R extends Target, T>(
  db: Db,
  caller: Caller,
  id: string,
  read: (q: Kysely<Database>, actor: string) => Promise<R | undefined>,
  work: (q: Kysely<Database>, target: R, actor: string, moderator: boolean) => Promise<T | typeof MARK_CHANGED>,
): Promise<T> {
  // A guest votes where the comment's site lets guests vote; anywhere else it needs a credential.
  if (caller.kind === 'public' && !(await guestVotingOn(db.kysely, id))) requireCredential(caller);
  const actor = voterRefOf(caller);
  return untilMarked<T>(async () => {
    const { target, result } = await inWriteScope(db, async (q) => {
      const { target, moderator } = checkedTarget(caller, id, await read(q, actor));
      return { target, result: await work(q, target, actor, moderator) };
    });
    if (result !== MARK_CHANGED) db.changes.threadChanged(target.site_id, target.thread_url);
    return result as T | typeof MARK_CHANGED;
  });
}

/** Tries a mark's change again while the caller's mark changed between its read and its write, up to MOST_ATTEMPTS times. */
async function untilMarked<T>(attempt: () => Promise<T | typeof MARK_CHANGED>): Promise<T> {
  for (let attempts = 1; ; attempts++) {
    const result = await attempt();
    if (result !== MARK_CHANGED) return result as T;
    if (attempts === MOST_ATTEMPTS) throw new AppError('conflict', 'Your mark on this comment changed while this request was applied; send it again');
  }
}

/**
 * Whether the caller may mark the comment read as `target`: 404 if they cannot see it, 403 if banned
 * from its site, 409 if it is deleted. Answers it, and whether they moderate its site.
 */
function checkedTarget<R extends Target>(caller: Caller, id: string, target: R | undefined): { target: R; moderator: boolean } {
  const site = target && { id: target.site_id, accountId: target.account_id };
  if (!site || (caller.kind !== 'public' && !canAccessSite(caller, site))) throw new AppError('not_found', `No comment ${id}`);
  const moderator = isModerator(caller, site);
  if (!moderator && toCount(target.hidden) > 0) throw new AppError('not_found', `No comment ${id}`);
  if (Number(target.banned) === 1) throw bannedError();
  if (target.is_deleted) throw new AppError('conflict', 'The comment has been deleted');
  return { target, moderator };
}

/**
 * PostgreSQL: each statement on its own, as a mark's write is one statement. SQLite: one
 * transaction, as a mark's write there is two; it has one writer, so nothing changes between them.
 */
function inWriteScope<T>(db: Db, work: (q: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.dialect === 'postgres' ? work(db.kysely) : db.kysely.transaction().execute(work);
}

/**
 * Every statement of a vote or reaction is planned once per connection (see db/prepared.ts): each is
 * a lookup or write by primary key, whose plan is the key's index whatever the values, and planning
 * the read anew cost PostgreSQL more CPU than the rest of the vote (0.77 ms a call, by
 * pg_stat_statements). The read's walks up the chain are fenced for that (parentsInChain).
 */
const PLAN_ONCE = { planOnce: true };

/** What a vote reads: the target, the caller's vote, the counts, and whether a moderator's up-vote other than the caller's likes it. */
const voteTargetQuery = (db: Kysely<Database>, id: string, actor: string, now: string) =>
  targetQuery(db, id, actor, now)
    .leftJoin('votes as v', (join) => join.onRef('v.comment_id', '=', 'c.id').on('v.voter_ref', '=', actor))
    .select(['n.upvotes', 'n.downvotes', 'v.value as previous', 'v.by_moderator as previous_by_moderator'])
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
    );

const voteTarget = preparedQuery((db, _shape: null, id: string, actor: string, now: string) => voteTargetQuery(db, id, actor, now).compile(), PLAN_ONCE);

/** Which statement of a mark's change: the whole on PostgreSQL; on SQLite the mark's write, then the counts. */
type Part = 'write' | 'counts';

/** How a caller's mark changes: a first one, another value, or none any more. */
type Move = 'insert' | 'switch' | 'delete';

const moveOf = (previous: unknown, next: unknown): Move => (previous === null ? 'insert' : next === null ? 'delete' : 'switch');

/**
 * A prepared mark statement's shape: its part, its move, and whether it stamps the counts (when the
 * public sees the comment: see countsChangeStamp).
 */
interface MarkShape {
  part: Part;
  move: Move;
  stamp: boolean;
}

/** A mark's write, guarded by the mark it replaces, returning its comment's id when it was made. */
type MarkWrite = {
  [T in 'votes' | 'reactions']: InsertQueryBuilder<Database, T, MarkedRow> | UpdateQueryBuilder<Database, T, T, MarkedRow> | DeleteQueryBuilder<Database, T, MarkedRow>;
}['votes' | 'reactions'];
type MarkedRow = { comment_id: string };

/**
 * A mark's write and its comment's counts moved by it. The write is guarded by the mark it replaces
 * (an insert where there is still none, an update or delete of the value still there), and the
 * counts move relative to the row as the statement finds it, so a concurrent change by someone else
 * is never overwritten. On PostgreSQL one statement, the write in a CTE that the counts' update
 * waits for: no row back means the mark had changed and nothing was written. It locks the comment's
 * row (FOR KEY SHARE, as a new mark's reference does at the statement's end) before its counts, in
 * the order a moderator's change takes them (see unlessDeadlocked). SQLite cannot write in a CTE,
 * and its transaction has one writer: there the two run one after the other (runMarkAndCounts).
 */
function markAndCounts<Counts>(
  db: Kysely<Database>,
  part: Part,
  commentId: string,
  write: MarkWrite,
  counts: (db: QueryCreator<Database>) => UpdateQueryBuilder<Database, 'comment_counts', 'comment_counts', Counts>,
): CompiledQuery {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const afterWrite = db
      .with('marked', () => write)
      .with('locked', (db) => db.selectFrom('comments').select('id').where('id', '=', commentId).forKeyShare()) as unknown as QueryCreator<Database>;
    // Joined, the locked row is read before the counts' row is updated (and so locked).
    return counts(afterWrite).from(sql`locked`.as('locked')).where(sql<boolean>`exists (select 1 from marked)`).compile();
  }
  return part === 'write' ? write.compile() : counts(db).compile();
}

/** The comment's counts after the mark's write, or MARK_CHANGED when the mark was no longer the one read. */
async function runMarkAndCounts<Values extends unknown[]>(
  q: Kysely<Database>,
  query: (db: Kysely<Database>, shape: MarkShape, ...values: Values) => Promise<unknown[]>,
  move: Move,
  stamp: boolean,
  ...values: Values
): Promise<unknown> {
  const written = await unlessDeadlocked(query(q, { part: 'write', move, stamp }, ...values));
  if (written === MARK_CHANGED || written.length === 0) return MARK_CHANGED;
  if (q.getExecutor().adapter instanceof PostgresAdapter) return written[0];
  return (await query(q, { part: 'counts', move, stamp }, ...values))[0];
}

/**
 * What every change of a comment's counts sets besides them: its counts_changed_at when the change
 * stamps it, and a top-level comment's subtree revision (`top_level` is 1 on those, 0 on replies,
 * whose revision a trigger moves on their top-level comment's row: migration 0041).
 */
const countsChanged = (dialect: DialectName, stamp: boolean, now: string) => ({
  subtree_revision: sql<number>`subtree_revision + top_level`,
  ...(stamp ? { counts_changed_at: countsChangeStamp(dialect, now) } : {}),
});

const voteWrite = (db: Kysely<Database>, move: Move, commentId: string, voterRef: string, previous: number, value: number, byModerator: Flag, createdAt: string): MarkWrite => {
  if (move === 'insert') {
    return db
      .insertInto('votes')
      .values({ comment_id: commentId, voter_ref: voterRef, value, by_moderator: byModerator, created_at: createdAt })
      .onConflict((oc) => oc.doNothing())
      .returning('comment_id');
  }
  if (move === 'switch') {
    return db.updateTable('votes').set({ value, by_moderator: byModerator }).where('comment_id', '=', commentId).where('voter_ref', '=', voterRef).where('value', '=', previous).returning('comment_id');
  }
  return db.deleteFrom('votes').where('comment_id', '=', commentId).where('voter_ref', '=', voterRef).where('value', '=', previous).returning('comment_id');
};

/**
 * The comment's vote counts moved by `up` and `down`, with its score and Wilson bound computed from
 * the moved counts in the statement.
 */
const voteCountsMoved = (dialect: DialectName, id: string, up: number, down: number, stamp: boolean, now: string) => (db: QueryCreator<Database>) =>
  db
    .updateTable('comment_counts')
    .set({
      ...countsChanged(dialect, stamp, now),
      upvotes: sql`upvotes + ${up}`,
      downvotes: sql`downvotes + ${down}`,
      score: sql`score + ${up} - ${down}`,
      wilson: wilsonLowerBoundSql(sql`(upvotes + ${up})`, sql`(downvotes + ${down})`),
    })
    .where('comment_id', '=', id)
    .returning(['upvotes', 'downvotes']);

const voteChange = preparedQuery(
  (db, shape: MarkShape, commentId: string, voterRef: string, previous: number, value: number, byModerator: Flag, createdAt: string, up: number, down: number) =>
    markAndCounts(db, shape.part, commentId, voteWrite(db, shape.move, commentId, voterRef, previous, value, byModerator, createdAt), voteCountsMoved(dialectOfDb(db), commentId, up, down, shape.stamp, createdAt)),
  PLAN_ONCE,
);

/**
 * The checks of checkedTarget over a target `t` in SQL, for a caller's Reach (its values placed, as
 * a prepared query's must be): a site of its account that it reaches, a comment it may see (or a
 * site it moderates), no ban, not deleted.
 */
const passesChecks = (accountId: string, siteIds: string[] | null, moderator: Flag) => {
  const sites = sql`cast(${siteIds} as text[])`;
  return sql`t.account_id = ${accountId} and (${sites} is null or t.site_id = any(${sites}))
    and (cast(${moderator} as integer) = 1 or t.hidden = 0) and not t.banned and t.is_deleted = 0`;
};

/**
 * PostgreSQL, the vote of a reader's session or an API key as one statement, one round trip beside
 * the credential's lookup: the read of voteTarget; the checks of checkedTarget (passesChecks); the
 * vote's write guarded by the vote read; and the counts moved by it, as voteChange moves them. It
 * writes only where the checks pass, and answers the read, by which checkedTarget then says why it
 * did not; `marked` 0 with checks passed and a change asked for is a vote changed meanwhile (read again).
 */
const checkedVoteChange = preparedQuery(
  (db, _shape: null, id: string, actor: string, now: string, accountId: string, siteIds: string[] | null, moderator: Flag, value: number) => {
    const int = (value: unknown) => sql`cast(${value} as integer)`;
    const up = sql`(case when ${int(value)} = 1 then 1 else 0 end - case when ok.previous = 1 then 1 else 0 end)`;
    const down = sql`(case when ${int(value)} = -1 then 1 else 0 end - case when ok.previous = -1 then 1 else 0 end)`;
    return sql<VoteTargetRow & { marked: number | string; moved_upvotes: number | null; moved_downvotes: number | null }>`
      with t as (${voteTargetQuery(db, id, actor, now).forKeyShare('c')}),
      ok as (select * from t where ${passesChecks(accountId, siteIds, moderator)} and coalesce(t.previous, 0) <> ${int(value)}),
      inserted as (insert into votes (comment_id, voter_ref, value, by_moderator, created_at)
        select ${id}, ${actor}, ${int(value)}, ${int(moderator)}, ${now} from ok where ok.previous is null
        on conflict do nothing returning comment_id),
      switched as (update votes set value = ${int(value)}, by_moderator = ${int(moderator)} from ok
        where votes.comment_id = ${id} and votes.voter_ref = ${actor} and ${int(value)} <> 0 and votes.value = ok.previous returning votes.comment_id),
      removed as (delete from votes using ok
        where votes.comment_id = ${id} and votes.voter_ref = ${actor} and ${int(value)} = 0 and votes.value = ok.previous returning votes.comment_id),
      marked as (select comment_id from inserted union all select comment_id from switched union all select comment_id from removed),
      moved as (update comment_counts set upvotes = upvotes + d.up, downvotes = downvotes + d.down, score = score + d.up - d.down,
          wilson = ${wilsonLowerBoundSql(sql`(upvotes + d.up)`, sql`(downvotes + d.down)`)}, subtree_revision = subtree_revision + top_level,
          counts_changed_at = case when d.public_hidden = 0 then ${countsChangeStamp('postgres', now)} else counts_changed_at end
        from (select ${up} as up, ${down} as down, ok.public_hidden from ok) d
        where comment_id = ${id} and exists (select 1 from marked)
        returning upvotes, downvotes)
      select t.*, (select count(*) from marked) as marked, moved.upvotes as moved_upvotes, moved.downvotes as moved_downvotes
      from t left join moved on true`.compile(db);
  },
  PLAN_ONCE,
);

type VoteTargetRow = Awaited<ReturnType<typeof voteTarget>>[number];

/** Sets (or with null removes) the caller's vote, moving the counters by the difference. */
export function setVote(db: Db, caller: Caller, id: string, vote: VoteType | null): Promise<VoteResult> {
  const after = vote === 'up' ? 1 : vote === 'down' ? -1 : 0;
  const reach = reachOf(caller);
  if (db.dialect === 'postgres' && reach) return voteInOneStatement(db, caller, reach, id, after);
  const read = async (q: Kysely<Database>, actor: string) => (await voteTarget(q, null, id, actor, nowIso()))[0];
  return actOnComment(db, caller, id, read, async (q, target, actor, moderator) => {
    const before = target.previous ?? 0;
    let counts = { upvotes: Number(target.upvotes), downvotes: Number(target.downvotes) };
    if (before !== after) {
      const up = Number(after === 1) - Number(before === 1);
      const down = Number(after === -1) - Number(before === -1);
      const move = moveOf(before === 0 ? null : before, after === 0 ? null : after);
      const moved = await runMarkAndCounts(q, voteChange, move, publicSees(target), id, actor, before, after, moderator ? 1 : 0, nowIso(), up, down);
      if (moved === MARK_CHANGED) return MARK_CHANGED;
      const { upvotes, downvotes } = moved as { upvotes: number | string; downvotes: number | string };
      counts = { upvotes: Number(upvotes), downvotes: Number(downvotes) };
    }
    return voteResult(target, counts, before, after, moderator);
  });
}

/**
 * A one-statement change that PostgreSQL ended to break a deadlock wrote nothing, and is sent again
 * as a mark changed meanwhile is. The statement locks the comment's row first (FOR KEY SHARE, which
 * its mark's reference to the comment takes anyway), then its counts, in the order a moderator's
 * change takes them (the comment FOR UPDATE, then its counts by trigger): taken at the end, as the
 * reference's check did, the two deadlocked.
 */
async function unlessDeadlocked<T>(statement: Promise<T>): Promise<T | typeof MARK_CHANGED> {
  try {
    return await statement;
  } catch (error) {
    if ((error as { code?: unknown }).code === '40P01') return MARK_CHANGED;
    throw error;
  }
}

/** A session's or key's vote on PostgreSQL (checkedVoteChange), with the checks and retries of actOnComment. */
async function voteInOneStatement(db: Db, caller: Caller, reach: Reach, id: string, after: number): Promise<VoteResult> {
  return untilMarked(async () => {
    const rows = await unlessDeadlocked(checkedVoteChange(db.kysely, null, id, voterRefOf(caller), nowIso(), reach.accountId, reach.siteIds, reach.moderator ? 1 : 0, after));
    if (rows === MARK_CHANGED) return MARK_CHANGED;
    const [row] = rows;
    const { target, moderator } = checkedTarget(caller, id, row);
    const before = target.previous ?? 0;
    if (before !== after && toCount(row.marked) === 0) return MARK_CHANGED;
    if (before !== after) db.changes.threadChanged(target.site_id, target.thread_url);
    const counts = before === after ? target : { upvotes: row.moved_upvotes!, downvotes: row.moved_downvotes! };
    return voteResult(target, { upvotes: Number(counts.upvotes), downvotes: Number(counts.downvotes) }, before, after, moderator);
  });
}

function voteResult(target: VoteTargetRow, counts: Pick<VoteResult, 'upvotes' | 'downvotes'>, before: number, after: number, moderator: boolean): VoteResult {
  // The caller's own upvote counts as the site owner's when it was (or is now) cast as a moderator.
  const mineLiked = after === 1 && (before === after ? target.previous_by_moderator === 1 : moderator);
  return {
    ...counts,
    user_vote: after === 1 ? 'up' : after === -1 ? 'down' : null,
    liked_by_site_owner: mineLiked || Number(target.liked_by_others) === 1,
  };
}

/** Whether the public sees the comment, so that a change of its counts is stamped for live streams. */
const publicSees = (target: Target) => toCount(target.public_hidden) === 0;

/** What a reaction reads: the target, the site's reactions, the counts and the caller's reaction. */
const reactionTargetQuery = (db: Kysely<Database>, id: string, actor: string, now: string) =>
  targetQuery(db, id, actor, now)
    .leftJoin('reactions as r', (join) => join.onRef('r.comment_id', '=', 'c.id').on('r.reactor_ref', '=', actor))
    .select(['s.reactions', 'n.reaction_counts', 'r.type as previous']);

const reactionTarget = preparedQuery((db, _shape: null, id: string, actor: string, now: string) => reactionTargetQuery(db, id, actor, now).compile(), PLAN_ONCE);

const reactionWrite = (db: Kysely<Database>, move: Move, commentId: string, reactorRef: string, previous: string | null, type: string | null, createdAt: string): MarkWrite => {
  if (move === 'insert') {
    return db
      .insertInto('reactions')
      .values({ comment_id: commentId, reactor_ref: reactorRef, type: type as string, created_at: createdAt })
      .onConflict((oc) => oc.doNothing())
      .returning('comment_id');
  }
  if (move === 'switch') {
    return db.updateTable('reactions').set({ type: type as string }).where('comment_id', '=', commentId).where('reactor_ref', '=', reactorRef).where('type', '=', previous as string).returning('comment_id');
  }
  return db.deleteFrom('reactions').where('comment_id', '=', commentId).where('reactor_ref', '=', reactorRef).where('type', '=', previous as string).returning('comment_id');
};

/** The comment's reaction counts with one moved from `previous` to `next` (see movedJsonCounts). */
const reactionCountsMoved = (dialect: DialectName, id: string, previous: string | null, next: string | null, stamp: boolean, now: string) => (db: QueryCreator<Database>) =>
  db
    .updateTable('comment_counts')
    .set({ ...countsChanged(dialect, stamp, now), reaction_counts: movedJsonCounts(dialect, sql.ref('reaction_counts'), previous, next) })
    .where('comment_id', '=', id)
    .returning('reaction_counts');

const reactionChange = preparedQuery(
  (db, shape: MarkShape, commentId: string, reactorRef: string, previous: string | null, next: string | null, createdAt: string) =>
    markAndCounts(db, shape.part, commentId, reactionWrite(db, shape.move, commentId, reactorRef, previous, next, createdAt), reactionCountsMoved(dialectOfDb(db), commentId, previous, next, shape.stamp, createdAt)),
  PLAN_ONCE,
);

/** PostgreSQL, a session's or key's reaction as one statement, as checkedVoteChange makes a vote (and only of a type the site offers). */
const checkedReactionChange = preparedQuery(
  (db, _shape: null, id: string, actor: string, now: string, accountId: string, siteIds: string[] | null, moderator: Flag, type: string) => {
    const next = sql`(case when ok.previous = ${type} then null else cast(${type} as text) end)`;
    return sql<ReactionTargetRow & { marked: number | string; moved_reaction_counts: string | null }>`
      with t as (${reactionTargetQuery(db, id, actor, now).forKeyShare('c')}),
      ok as (select * from t where ${passesChecks(accountId, siteIds, moderator)} and jsonb_exists(cast(t.reactions as jsonb), cast(${type} as text))),
      inserted as (insert into reactions (comment_id, reactor_ref, type, created_at)
        select ${id}, ${actor}, ${type}, ${now} from ok where ok.previous is null
        on conflict do nothing returning comment_id),
      switched as (update reactions set type = ${type} from ok
        where reactions.comment_id = ${id} and reactions.reactor_ref = ${actor} and ok.previous <> ${type} and reactions.type = ok.previous returning reactions.comment_id),
      removed as (delete from reactions using ok
        where reactions.comment_id = ${id} and reactions.reactor_ref = ${actor} and ok.previous = ${type} and reactions.type = ok.previous returning reactions.comment_id),
      marked as (select comment_id from inserted union all select comment_id from switched union all select comment_id from removed),
      moved as (update comment_counts set reaction_counts = ${movedJsonCounts('postgres', sql.ref('reaction_counts'), sql`d.previous`, sql`d.next`)},
          subtree_revision = subtree_revision + top_level,
          counts_changed_at = case when d.public_hidden = 0 then ${countsChangeStamp('postgres', now)} else counts_changed_at end
        from (select ok.previous, ${next} as next, ok.public_hidden from ok) d
        where comment_id = ${id} and exists (select 1 from marked)
        returning reaction_counts)
      select t.*, (select count(*) from marked) as marked, moved.reaction_counts as moved_reaction_counts
      from t left join moved on true`.compile(db);
  },
  PLAN_ONCE,
);

type ReactionTargetRow = Awaited<ReturnType<typeof reactionTarget>>[number];

/** A session's or key's reaction on PostgreSQL (checkedReactionChange), with the checks and retries of actOnComment. */
async function reactionInOneStatement(db: Db, caller: Caller, reach: Reach, id: string, type: string): Promise<ReactionResult> {
  return untilMarked(async () => {
    const rows = await unlessDeadlocked(checkedReactionChange(db.kysely, null, id, voterRefOf(caller), nowIso(), reach.accountId, reach.siteIds, reach.moderator ? 1 : 0, type));
    if (rows === MARK_CHANGED) return MARK_CHANGED;
    const [row] = rows;
    const { target } = checkedTarget(caller, id, row);
    checkedReaction(target, type);
    // A reaction always changes something: nothing marked is a reaction changed meanwhile.
    if (toCount(row.marked) === 0) return MARK_CHANGED;
    db.changes.threadChanged(target.site_id, target.thread_url);
    return { reaction_counts: JSON.parse(row.moved_reaction_counts!) as Record<string, number>, user_reaction: target.previous === type ? null : type };
  });
}

/** 400 unless the comment's site offers reactions of this type. */
function checkedReaction(target: ReactionTargetRow, type: string): void {
  const allowed = JSON.parse(target.reactions) as string[];
  if (!allowed.includes(type)) throw invalid('body/reaction_type', `must be one of ${allowed.join(', ')}`);
}

/** Toggles the caller's reaction: the same type again removes it, another type replaces it. */
export function toggleReaction(db: Db, caller: Caller, id: string, type: string): Promise<ReactionResult> {
  const reach = reachOf(caller);
  if (db.dialect === 'postgres' && reach) return reactionInOneStatement(db, caller, reach, id, type);
  const read = async (q: Kysely<Database>, actor: string) => (await reactionTarget(q, null, id, actor, nowIso()))[0];
  return actOnComment(db, caller, id, read, async (q, target, actor) => {
    checkedReaction(target, type);
    const mine = target.previous === type ? null : type;
    const moved = await runMarkAndCounts(q, reactionChange, moveOf(target.previous, mine), publicSees(target), id, actor, target.previous, mine, nowIso());
    if (moved === MARK_CHANGED) return MARK_CHANGED;
    return { reaction_counts: JSON.parse((moved as { reaction_counts: string }).reaction_counts) as Record<string, number>, user_reaction: mine };
  });
}
