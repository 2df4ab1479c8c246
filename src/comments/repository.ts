import { PostgresAdapter, sql, type Insertable, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { CommentCountsTable, CommentTable, Database, EventTable, NotificationJobTable } from '../db/schema.ts';
import { dialectOfDb, parentsInChain, toCount, type DialectName } from '../db/dialect.ts';
import { preparedInsert, preparedQuery } from '../db/prepared.ts';
import { pageAfterPinned, type Window } from './pinned.ts';
import { COUNT_COLUMNS, VIEW_SELECTION, VIEW_SELECTION_SQL, type CommentRow, type ViewRow, type ViewerMarks } from './view.ts';
import { PUBLIC_VIEWER, visibleTo, type Viewer } from './visibility.ts';

export const SORTS = ['newest', 'oldest', 'top', 'best'] as const;
export type Sort = (typeof SORTS)[number];

/** Replies nested under one top-level comment in a list; GET /v1/comments/:id pages through the rest. */
export const LIST_REPLY_CAP = 500;

/** Fixed identifiers, so written once as SQL text rather than compiled for every branch of every list. */
const VIEW_SELECTION_RAW = sql.raw(VIEW_SELECTION_SQL);

/** Comments as `c` with their counts as `n`: what every read of a comment's API form starts from. */
export function commentsWithCounts(db: Kysely<Database>) {
  return db.selectFrom('comments as c').innerJoin('comment_counts as n', 'n.comment_id', 'c.id');
}

export interface Thread {
  id: string;
  site_id: string;
  public_total: number;
  all_total: number;
  listing_revision: number;
}

const threadByUrl = preparedQuery((db, _shape: null, siteId: string, urlKey: string) =>
  db
    .selectFrom('threads')
    .select(['id', 'site_id', 'public_total', 'all_total', 'listing_revision'])
    .where('site_id', '=', siteId)
    .where('url_key', '=', urlKey)
    .compile(),
);

export async function findThread(db: Kysely<Database>, siteId: string, urlKey: string): Promise<Thread | undefined> {
  const [thread] = await threadByUrl(db, null, siteId, urlKey);
  return thread;
}

// A reply's parent and every single-comment request read these (see db/prepared.ts).
const commentById = preparedQuery((db, _shape: null, id: string) =>
  db
    .selectFrom('comments')
    .innerJoin('threads', 'threads.id', 'comments.thread_id')
    .innerJoin('comment_counts', 'comment_counts.comment_id', 'comments.id')
    .selectAll('comments')
    .select(COUNT_COLUMNS.map((column) => `comment_counts.${column}` as const))
    .select(['threads.url_key as thread_url', 'threads.closed_at as thread_closed_at'])
    .where('comments.id', '=', id)
    .compile(),
);

export async function findComment(db: Kysely<Database>, id: string) {
  const [comment] = await commentById(db, null, id);
  return comment;
}

/**
 * SQL: how many of this comment and its ancestors the viewer may not see (0: visible; a removed,
 * spam or pending comment hides its replies). One recursive query up the parent chain, to read alone
 * or beside other columns. Each step is a primary-key lookup that judges its row as it reads it
 * (parentsInChain), so the plan is the same whatever the values and the table's size: PostgreSQL
 * may keep it prepared (a generic plan of a count over `id in (chain)` had scanned the table). A row
 * the test cannot decide (SQL's null, as for a guest's comment, whose author is null) counts as hidden.
 */
export function hiddenInChain(dialect: DialectName, viewer: Viewer, id: string | RawBuilder<string>): RawBuilder<number | string> {
  const hidden = (alias: string) => sql`case when ${visibleTo(viewer, alias)} then 0 else 1 end`;
  return sql<number | string>`(
    with recursive chain(parent_id, hidden) as (
      select parent_id, ${hidden('comments')} from comments where id = ${id}
      union all
      ${parentsInChain(dialect, sql`${hidden('c')} as hidden`)}
    )
    select coalesce(sum(hidden), 0) from chain)`;
}

/** Whether the viewer may see this comment: the row itself, and every ancestor. */
export async function isVisible(db: Kysely<Database>, viewer: Viewer, id: string): Promise<boolean> {
  if (viewer.moderator) return true;
  const [row] = await hiddenFrom(db, viewer.ref === null ? 'public' : 'author', viewer.ref, id);
  return toCount(row?.hidden) === 0;
}

const hiddenFrom = preparedQuery((db, viewer: 'public' | 'author', viewerRef: string | null, id: string) =>
  sql<{ hidden: number | string }>`select ${hiddenInChain(dialectOfDb(db), { ref: viewer === 'public' ? null : viewerRef, moderator: false }, id)} as hidden`.compile(db),
);

/**
 * Whether this author has a comment in the thread that the public does not see but they do
 * (pending, or published while shadow-banned). The condition is the one of the partial index
 * comments_only_author_sees (migration 0005), which holds only such rows.
 */
const commentOnlyAuthorSees = preparedQuery((db, _shape: null, siteId: string, urlKey: string, authorRef: string) =>
  db
    .selectFrom('comments')
    .select('id')
    // The thread by its URL in the same statement: a reader's list asks nothing else of it.
    .where('thread_id', '=', (eb) => eb.selectFrom('threads').select('id').where('site_id', '=', siteId).where('url_key', '=', urlKey))
    .where('author_ref', '=', authorRef)
    .where(sql<SqlBool>`(status = 'pending' or (status = 'published' and moderation_status is not null))`)
    .limit(sql.lit(1))
    .compile(),
);

export async function hasCommentsOnlyAuthorSees(db: Kysely<Database>, siteId: string, urlKey: string, authorRef: string): Promise<boolean> {
  return (await commentOnlyAuthorSees(db, null, siteId, urlKey, authorRef)).length > 0;
}

/** Whether a top-level comment `c` is in the viewer's list (stored per row for the public and moderators). */
export function listable(viewer: Viewer) {
  // A deleted top-level comment stays as a placeholder while a live reply below it is shown: one the
  // viewer may see through every reply above it, since a hidden reply hides its subtree (wholeSubtree).
  // The walk down runs only for deleted top-level comments.
  return sql<boolean>`(${visibleTo(viewer, 'c')} and (c.is_deleted = 0 or exists (
    with recursive shown(id, is_deleted) as (
      select d.id, d.is_deleted from comments d where d.parent_id = c.id and ${visibleTo(viewer, 'd')}
      union all
      select d.id, d.is_deleted from comments d join shown on d.parent_id = shown.id where ${visibleTo(viewer, 'd')}
    )
    select 1 from shown where shown.is_deleted = 0)))`;
}

/** Comments `c` and their counts `n`, as every list reads them. */
type Counted = Database & { c: CommentTable; n: CommentCountsTable };

function inOrder<Q extends SelectQueryBuilder<Counted, 'c' | 'n', object>>(query: Q, sort: Sort): Q {
  if (sort === 'top') return query.orderBy('n.score', 'desc').orderBy('n.comment_id', 'desc') as Q;
  if (sort === 'best') return query.orderBy('n.wilson', 'desc').orderBy('n.comment_id', 'desc') as Q;
  const direction = sort === 'oldest' ? 'asc' : 'desc';
  return query.orderBy('c.created_at', direction).orderBy('c.id', direction) as Q;
}

/** Literals (validated integers): SQLite plans a bound LIMIT worse. */
function pageWindow<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>, { offset, limit }: Window): SelectQueryBuilder<DB, TB, O> {
  return query.limit(sql.lit(limit)).offset(sql.lit(offset));
}

interface PageShape extends Window {
  stored: 'listed_public' | 'listed_all';
  sort: Sort;
  /** How many pinned ids the page leaves out (they lead page 1: see pinned.ts). */
  pinned: number;
}

/**
 * The ids of a page of a stored listing, from an index alone: a deep page skips index entries, not
 * rows (the index holds the id, so leaving the pinned ones out reads no row either). The orders by
 * time read the comments' indexes; the orders by votes, the counts' (migration 0041), whose
 * condition `top_level = 1` is a literal, so that PostgreSQL matches the partial index.
 */
function storedPageIds(db: Kysely<Database>, { stored, sort, pinned, ...window }: PageShape, threadId: string, pinnedIds: string[]) {
  const leftOut = pinnedIds.slice(0, pinned);
  if (sort === 'top' || sort === 'best') {
    let ids = db.selectFrom('comment_counts as n').where('n.thread_id', '=', threadId).where('n.top_level', '=', sql.lit(1)).where(`n.${stored}`, '=', sql.lit(1));
    if (pinned > 0) ids = ids.where('n.comment_id', 'not in', leftOut);
    const order = sort === 'top' ? 'n.score' : 'n.wilson';
    return pageWindow(ids.select('n.comment_id as id').orderBy(order, 'desc').orderBy('n.comment_id', 'desc'), window);
  }
  let ids = db.selectFrom('comments as c').where('c.thread_id', '=', threadId).where('c.parent_id', 'is', null).where(`c.${stored}`, '=', sql.lit(1));
  if (pinned > 0) ids = ids.where('c.id', 'not in', leftOut);
  const direction = sort === 'oldest' ? 'asc' : 'desc';
  return pageWindow(ids.select('c.id').orderBy('c.created_at', direction).orderBy('c.id', direction), window);
}

/**
 * A page of a stored listing (`listed_public` or `listed_all`). The page's ids come first, then
 * their rows (page 500 of a 100,000-comment thread: 1.5 ms instead of 5).
 */
const storedPage = preparedQuery(
  (db, shape: PageShape, threadId: string, ...pinnedIds: string[]) =>
    inOrder(commentsWithCounts(db).select(VIEW_SELECTION).where('c.id', 'in', storedPageIds(db, shape, threadId, pinnedIds)), shape.sort).compile(),
  { planOnce: true },
);

const publicPageIds = preparedQuery((db, shape: PageShape, threadId: string, ...pinnedIds: string[]) => storedPageIds(db, shape, threadId, pinnedIds).compile(), {
  planOnce: true,
});

/**
 * The top-level comments pinned in a stored listing, oldest pin first: a range of the partial index
 * comments_pinned, which holds only pinned comments (at most MAX_PINNED a thread).
 */
const storedPinned = preparedQuery(
  (db, stored: PageShape['stored'], threadId: string) =>
    commentsWithCounts(db)
      .select(VIEW_SELECTION)
      .where('c.thread_id', '=', threadId)
      .where('c.pinned_at', 'is not', null)
      .where(`c.${stored}`, '=', sql.lit(1))
      .orderBy('c.pinned_at')
      .orderBy('c.id')
      .compile(),
);

/** The ids of the public's page of a thread's top-level comments, in its order (pinned ones first on page 1; from indexes alone). */
export async function listPublicPageIds(db: Kysely<Database>, thread: Thread, sort: Sort, page: number, limit: number): Promise<string[]> {
  const pinned = (await storedPinned(db, 'listed_public', thread.id)).map((row) => row.id);
  const { leading, rest } = pageAfterPinned(pinned, page, limit);
  if (rest.limit === 0) return leading;
  const shape = { stored: 'listed_public', sort, pinned: pinned.length, ...rest } as const;
  return [...leading, ...(await publicPageIds(db, shape, thread.id, ...pinned)).map((row) => row.id)];
}

/** A top-level comment's id and the revision of its subtree. */
export interface PageRoot {
  id: string;
  subtree_revision: number;
}

const revisionsById = preparedQuery((db, _count: number, ...ids: string[]) =>
  db.selectFrom('comment_counts').select(['comment_id as id', 'subtree_revision']).where('comment_id', 'in', ids).compile(),
);

/** The current subtree revisions of these top-level comments (in no particular order). */
export async function subtreeRevisions(db: Kysely<Database>, ids: string[]): Promise<PageRoot[]> {
  return ids.length === 0 ? [] : revisionsById(db, ids.length, ...ids);
}

const rowsById = preparedQuery((db, _count: number, ...ids: string[]) => commentsWithCounts(db).select(VIEW_SELECTION).where('c.id', 'in', ids).compile());

/**
 * Those of these comments the public sees now, itself and every ancestor (in no particular order),
 * in one statement: each row's walk up its chain is one recursive subquery.
 */
export async function publicViewRows(db: Kysely<Database>, ids: string[]): Promise<ViewRow[]> {
  if (ids.length === 0) return [];
  return commentsWithCounts(db)
    .select(VIEW_SELECTION)
    .where('c.id', 'in', ids)
    .where(visibleTo(PUBLIC_VIEWER, 'c'))
    .where(sql<SqlBool>`${hiddenInChain(dialectOfDb(db), PUBLIC_VIEWER, sql.ref('c.id'))} = 0`)
    .execute();
}

/** Comments by id (in no particular order). */
export async function readViewRows(db: Kysely<Database>, ids: string[]): Promise<ViewRow[]> {
  return ids.length === 0 ? [] : rowsById(db, ids.length, ...ids);
}

/**
 * A page of the thread's top-level comments for the viewer, and how many there are. The public and
 * moderators read the stored listing (an index range and a counter); anyone else sees the public's
 * list plus what only they may see, which can only be under their own comments.
 */
export async function listTopLevel(
  db: Kysely<Database>,
  viewer: Viewer,
  thread: Thread,
  sort: Sort,
  page: number,
  limit: number,
): Promise<{ rows: ViewRow[]; total: number }> {
  const base = db.selectFrom('comments as c').where('c.thread_id', '=', thread.id).where('c.parent_id', 'is', null);
  const stored = viewer.moderator ? 'listed_all' : viewer.ref === null ? 'listed_public' : null;
  if (stored) {
    const pinned = await storedPinned(db, stored, thread.id);
    const { leading, rest } = pageAfterPinned(pinned, page, limit);
    const shape: PageShape = { stored, sort, pinned: pinned.length, ...rest };
    const rows = rest.limit === 0 ? [] : await storedPage(db, shape, thread.id, ...pinned.map((row) => row.id));
    return { rows: [...leading, ...rows], total: Number(viewer.moderator ? thread.all_total : thread.public_total) };
  }
  const counted = commentsWithCounts(db).where('c.thread_id', '=', thread.id).where('c.parent_id', 'is', null);
  const pinned = await counted.where('c.pinned_at', 'is not', null).where(listable(viewer)).select(VIEW_SELECTION).orderBy('c.pinned_at').orderBy('c.id').execute();
  const { leading, rest } = pageAfterPinned(pinned, page, limit);
  const unpinned = pinned.length === 0 ? counted : counted.where('c.id', 'not in', pinned.map((row) => row.id));
  const rows = rest.limit === 0 ? Promise.resolve([]) : pageWindow(inOrder(unpinned.where(listable(viewer)).select(VIEW_SELECTION), sort), rest).execute();
  const ownRoots = db
    .selectFrom('comments as a')
    .select('a.root_id')
    .where('a.site_id', '=', thread.site_id)
    .where('a.author_ref', '=', viewer.ref)
    .where('a.thread_id', '=', thread.id);
  const [pageRows, extra] = await Promise.all([
    rows,
    base
      .where('c.listed_public', '=', 0)
      .where('c.id', 'in', ownRoots)
      .where(listable(viewer))
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: [...leading, ...pageRows], total: Number(thread.public_total) + toCount(extra.n) };
}

/**
 * Up to `cap + 1` visible replies under each root, oldest first, in one round trip: one LIMITed
 * branch per root, joined by UNION ALL, each served by the (root_id, created_at) index.
 */
export async function listReplies(db: Kysely<Database>, viewer: Viewer, rootIds: string[], cap: number): Promise<ViewRow[]> {
  if (rootIds.length === 0) return [];
  const shape = { roots: rootIds.length, cap, viewer: viewer.moderator ? 'moderator' : viewer.ref === null ? 'public' : 'author' } as const;
  return replyBranches(db, shape, viewer.ref, ...rootIds);
}

const replyBranches = preparedQuery(
  (db, { roots, cap, viewer }: { roots: number; cap: number; viewer: 'moderator' | 'public' | 'author' }, viewerRef: string | null, ...rootIds: string[]) => {
    const visible = visibleTo({ ref: viewer === 'public' ? null : viewerRef, moderator: viewer === 'moderator' }, 'c');
    // Written as SQL text: the query builder took longer to assemble 20 branches than SQLite to run them.
    // The cap is a literal: with a bound LIMIT, SQLite ran the branches four times slower.
    const branches = rootIds.slice(0, roots).map(
      (rootId) => sql`select * from (select ${VIEW_SELECTION_RAW} from comments c join comment_counts n on n.comment_id = c.id where c.root_id = ${rootId} and c.id <> ${rootId}
        and ${visible} order by c.created_at, c.id limit ${sql.lit(cap + 1)}) as branch`,
    );
    return sql<ViewRow>`${sql.join(branches, sql` union all `)}`.compile(db);
  },
  { planOnce: true },
);

type ViewerKind = 'moderator' | 'public' | 'author';

function viewerKind(viewer: Viewer): ViewerKind {
  return viewer.moderator ? 'moderator' : viewer.ref === null ? 'public' : 'author';
}

function viewerOfKind(kind: ViewerKind, viewerRef: string | null): Viewer {
  return { ref: kind === 'public' ? null : viewerRef, moderator: kind === 'moderator' };
}

/** SQL: whether comment `alias` has a reply the viewer may see. */
function hasVisibleReply(viewer: Viewer, alias: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`exists (select 1 from comments d where d.parent_id = ${sql.ref(alias)}.id and ${visibleTo(viewer, 'd')})`;
}

/** A reply as a walk through a subtree sees it: where it stands among its siblings, and whether it has replies. */
export interface WalkedReply {
  id: string;
  parent_id: string;
  created_at: string;
  has_replies: boolean;
}

/** A reply's place among its siblings, which come oldest first. */
export type SiblingKey = Pick<WalkedReply, 'created_at' | 'id'>;

const repliesAfter = preparedQuery(
  (db, { viewer, after, limit }: { viewer: ViewerKind; after: boolean; limit: number }, viewerRef: string | null, parentId: string, afterAt: string | null, afterId: string | null) => {
    const shown = viewerOfKind(viewer, viewerRef);
    // The first term bounds the index range; the second passes over the siblings of the same time up to the last one read.
    const from = after ? sql`and c.created_at >= ${afterAt} and (c.created_at > ${afterAt} or c.id > ${afterId})` : sql``;
    // Whether each has replies is asked of the page alone: over the whole range, PostgreSQL may
    // expect as many probes as the comment has replies and read the table once instead.
    return sql<WalkedReply & { has_replies: number | boolean }>`
      select p.id, p.parent_id, p.created_at, ${hasVisibleReply(shown, 'p')} as has_replies from (
        select c.id, c.parent_id, c.created_at from comments c
        where c.parent_id = ${parentId} ${from} and ${visibleTo(shown, 'c')}
        order by c.created_at, c.id limit ${sql.lit(limit)}) p
      order by p.created_at, p.id`.compile(db);
  },
);

/**
 * Up to `limit` replies the viewer may see directly under a comment, oldest first, after `after` (a
 * sibling's place) when given: one range of the (parent_id, created_at) index. `limit` is rounded up
 * to a power of two (a caller wanting fewer ignores the rest), so that few shapes are prepared.
 */
export async function repliesOf(db: Kysely<Database>, viewer: Viewer, parentId: string, after: SiblingKey | null, limit: number): Promise<WalkedReply[]> {
  const shape = { viewer: viewerKind(viewer), after: after !== null, limit: 2 ** Math.ceil(Math.log2(limit)) };
  const rows = await repliesAfter(db, shape, viewer.ref, parentId, after?.created_at ?? null, after?.id ?? null);
  return rows.map((row) => ({ ...row, has_replies: Boolean(row.has_replies) }));
}

/** A reply on the way from a comment down to a reply below it, as a walk resumed there needs it. */
export interface PathReply extends WalkedReply {
  /** Its level below the comment (its replies are level 1). */
  depth: number;
  /** The viewer may see it (whether an ancestor hides it is the path's to tell). */
  visible: boolean;
  /** A reply the viewer may see comes after it under the same parent. */
  has_later: boolean;
}

const pathUp = preparedQuery(
  (db, { viewer, maxDepth }: { viewer: ViewerKind; maxDepth: number }, viewerRef: string | null, fromId: string, rootId: string) => {
    const shown = viewerOfKind(viewer, viewerRef);
    // The rows' columns are carried up the chain, so that nothing joins comments to it again.
    return sql<{ id: string; parent_id: string; created_at: string; hops: number; visible: unknown; has_later: unknown; has_replies: unknown }>`
      with recursive chain(id, parent_id, created_at, status, moderation_status, author_ref, hops) as (
        select id, parent_id, created_at, status, moderation_status, author_ref, 1 from comments where id = ${fromId} and id <> ${rootId}
        union all
        select c.id, c.parent_id, c.created_at, c.status, c.moderation_status, c.author_ref, chain.hops + 1
        from comments c join chain on c.id = chain.parent_id
        where chain.parent_id <> ${rootId} and chain.hops < ${sql.lit(maxDepth)}
      )
      select chain.id, chain.parent_id, chain.created_at, chain.hops,
        ${visibleTo(shown, 'chain')} as visible,
        exists (select 1 from comments s where s.parent_id = chain.parent_id
          and s.created_at >= chain.created_at and (s.created_at > chain.created_at or s.id > chain.id) and ${visibleTo(shown, 's')}) as has_later,
        ${hasVisibleReply(shown, 'chain')} as has_replies
      from chain`.compile(db);
  },
);

/**
 * The replies from comment `rootId` down to reply `fromId`, top first, each with what a walk
 * resumed after `fromId` needs: undefined when `fromId` is not a reply at most `maxDepth` levels
 * below `rootId`. One recursive query up the parent chain, with an index probe per level.
 */
export async function pathBetween(db: Kysely<Database>, viewer: Viewer, rootId: string, fromId: string, maxDepth: number): Promise<PathReply[] | undefined> {
  const rows = await pathUp(db, { viewer: viewerKind(viewer), maxDepth }, viewer.ref, fromId, rootId);
  const top = rows.reduce<(typeof rows)[number] | undefined>((found, row) => (found && found.hops > row.hops ? found : row), undefined);
  if (top?.parent_id !== rootId) return undefined;
  return rows
    .map((row) => ({
      id: row.id,
      parent_id: row.parent_id,
      created_at: row.created_at,
      depth: top.hops - row.hops + 1,
      visible: Boolean(row.visible),
      has_later: Boolean(row.has_later),
      has_replies: Boolean(row.has_replies),
    }))
    .sort((a, b) => a.depth - b.depth);
}

/**
 * The viewer's votes (`value`) and reactions (`type`) on the given comments, in one statement; a
 * list with no ids is left out of it.
 */
const marksOn = preparedQuery((db, { voted, reacted }: { voted: number; reacted: number }, viewerRef: string, ...ids: string[]) => {
  const votes = db
    .selectFrom('votes')
    .select(['comment_id', sql<number | null>`value`.as('value'), sql<string | null>`null`.as('type')])
    .where('voter_ref', '=', viewerRef)
    .where('comment_id', 'in', ids.slice(0, voted));
  const reactions = db
    .selectFrom('reactions')
    .select(['comment_id', sql<number | null>`null`.as('value'), sql<string | null>`type`.as('type')])
    .where('reactor_ref', '=', viewerRef)
    .where('comment_id', 'in', ids.slice(voted, voted + reacted));
  if (reacted === 0) return votes.compile();
  if (voted === 0) return reactions.compile();
  return votes.unionAll(reactions).compile();
});

/** A comment a viewer may have marked: only one with votes can hold theirs, one with reactions theirs. */
export interface Markable {
  id: string;
  voted: boolean;
  reacted: boolean;
}

/**
 * The viewer's own votes and reactions on the given comments, for `user_vote`/`user_reaction`. Only
 * comments whose counts show a vote (or a reaction) are looked up: the counts are kept in the
 * transaction of every vote and reaction, so a comment without any holds none of the viewer's.
 */
export async function marksOf(db: Kysely<Database>, viewer: Viewer, comments: Markable[]): Promise<ViewerMarks> {
  const marks: ViewerMarks = { viewerRef: viewer.ref, votes: new Map(), reactions: new Map() };
  if (viewer.ref === null) return marks;
  const votedIds = comments.filter((c) => c.voted).map((c) => c.id);
  const reactedIds = comments.filter((c) => c.reacted).map((c) => c.id);
  if (votedIds.length + reactedIds.length === 0) return marks;
  const shape = { voted: votedIds.length, reacted: reactedIds.length };
  for (const mark of await marksOn(db, shape, viewer.ref, ...votedIds, ...reactedIds)) {
    if (mark.type !== null) marks.reactions.set(mark.comment_id, mark.type);
    else marks.votes.set(mark.comment_id, Number(mark.value));
  }
  return marks;
}

export const insertComment = preparedInsert('comments');

/**
 * A new comment's row, the fan-out job that tells its thread's followers of it (null: none), and its
 * comment.created when it queues nothing beside itself (eventRowAlone; null: recorded already).
 */
export interface NewComment {
  row: CommentRow;
  job: Insertable<NotificationJobTable> | null;
  event: Insertable<EventTable> | null;
}

/**
 * A new top-level comment's insert (and its fan-out job's and event's), made part of the statement that counts it
 * into its thread (whose update locks the thread's row): on PostgreSQL it answers the CTEs to put
 * first in that statement, as the insert's triggers lock the thread's row too (its listing
 * revision), and every statement after them is a round trip that the thread's other comments wait
 * for. On SQLite, where a statement costs no round trip and none can write in a CTE, it inserts the
 * rows and answers null.
 */
export async function insertedFirst(db: Kysely<Database>, { row, job, event }: NewComment): Promise<RawBuilder<unknown> | null> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    // The job's reference to the comment is checked at the statement's end, when the comment is in.
    const queued = job ? sql`queued as (${db.insertInto('notification_jobs').values(job)}),` : sql``;
    const recorded = event ? sql`recorded as (${db.insertInto('events').values(event)}),` : sql``;
    return sql`inserted as (${db.insertInto('comments').values(row)}), ${queued} ${recorded}`;
  }
  await insertComment(db, row);
  if (job) await db.insertInto('notification_jobs').values(job).execute();
  if (event) await db.insertInto('events').values(event).execute();
  return null;
}
