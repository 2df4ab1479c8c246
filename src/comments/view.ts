import type { Selectable } from 'kysely';
import type { CommentCountsTable, CommentTable } from '../db/schema.ts';
import type { Mention } from '../formatting/render.ts';

export type CommentRow = Selectable<CommentTable>;

/**
 * The columns a comment's API form is made of, and the tree needs (`root_id`): lists read only these
 * (each column of each row read costs: a third less than the whole row). Public lists keep
 * serialised subtrees until a trigger moves their revision (src/comments/public-list.ts): a column
 * added here that a write can change must also be named by that trigger (SHOWN_COLUMNS in
 * src/db/migrations/0041_comment_counts.ts, recreated by a new migration), or its changes would not
 * show.
 */
export const VIEW_COLUMNS = [
  'id',
  'site_id',
  'parent_id',
  'root_id',
  'author_ref',
  'author_name',
  'content',
  'content_html',
  'mentions',
  'author_badges',
  'pinned_at',
  'status',
  'moderation_status',
  'is_deleted',
  'is_edited',
  'created_at',
] as const satisfies readonly (keyof CommentRow)[];

/** The counts the API form shows, from the comment's `comment_counts` row (whose changes move the revision by trigger too). */
export const COUNT_COLUMNS = ['upvotes', 'downvotes', 'reaction_counts'] as const satisfies readonly (keyof Selectable<CommentCountsTable>)[];

export type CountsRow = Pick<Selectable<CommentCountsTable>, (typeof COUNT_COLUMNS)[number]>;

export type ViewRow = Pick<CommentRow, (typeof VIEW_COLUMNS)[number]> & CountsRow;

/** A new comment's counts, as its row in `comment_counts` starts. */
export const NO_COUNTS: CountsRow = { upvotes: 0, downvotes: 0, reaction_counts: '{}' };

/**
 * What a query of `comments as c` joined to `comment_counts as n` selects for the API form (see
 * joinCounts in repository.ts), as Kysely references and as SQL text.
 */
export const VIEW_SELECTION = [...VIEW_COLUMNS.map((column) => `c.${column}` as const), ...COUNT_COLUMNS.map((column) => `n.${column}` as const)];
export const VIEW_SELECTION_SQL = VIEW_SELECTION.join(', ');

/** The API form of a comment (specification part 2.1 plus the contract's additions). */
export interface CommentView {
  id: string;
  content: string | null;
  content_html: string | null;
  mentions: Mention[];
  author_name: string;
  author_is_guest: boolean;
  author_badges: string[];
  upvotes: number;
  downvotes: number;
  reaction_counts: Record<string, number>;
  thread_url: string;
  site_id: string;
  parent_id: string | null;
  created_at: string;
  is_edited: boolean;
  is_deleted: boolean;
  pinned: boolean;
  status: string;
  moderation_status: string | null;
  has_more_replies: boolean;
  user_vote: 'up' | 'down' | null;
  user_reaction: string | null;
  user_is_author: boolean;
  replies: CommentView[];
}

/** What the viewer has done on each comment, for the personalised fields. */
export interface ViewerMarks {
  viewerRef: string | null;
  votes: Map<string, number>;
  reactions: Map<string, string>;
}

export const NO_MARKS: ViewerMarks = { viewerRef: null, votes: new Map(), reactions: new Map() };

/** Marks for a viewer who has not voted or reacted yet (a comment just written or deleted). */
export function authorMarks(viewerRef: string | null): ViewerMarks {
  return { ...NO_MARKS, viewerRef };
}

/** What the viewer can have marked on a comment, from its stored counts. */
export function markableRow(row: Pick<ViewRow, 'id' | 'upvotes' | 'downvotes' | 'reaction_counts'>) {
  return { id: row.id, voted: Number(row.upvotes) + Number(row.downvotes) > 0, reacted: row.reaction_counts !== '{}' };
}

export function userVote(value: number | undefined): CommentView['user_vote'] {
  return value === 1 ? 'up' : value === -1 ? 'down' : null;
}

export function toView(row: ViewRow, threadUrl: string, marks: ViewerMarks = NO_MARKS): CommentView {
  return {
    id: row.id,
    content: row.is_deleted ? null : row.content,
    content_html: row.is_deleted ? null : row.content_html,
    mentions: row.is_deleted ? [] : JSON.parse(row.mentions),
    author_name: row.author_name,
    // Guests are the only authors without an identity (actorRef).
    author_is_guest: row.author_ref === null,
    author_badges: JSON.parse(row.author_badges),
    upvotes: Number(row.upvotes),
    downvotes: Number(row.downvotes),
    reaction_counts: JSON.parse(row.reaction_counts),
    thread_url: threadUrl,
    site_id: row.site_id,
    parent_id: row.parent_id,
    created_at: row.created_at,
    is_edited: row.is_edited === 1,
    is_deleted: row.is_deleted === 1,
    pinned: row.pinned_at !== null,
    status: row.status,
    moderation_status: row.moderation_status,
    has_more_replies: false,
    user_vote: userVote(marks.votes.get(row.id)),
    user_reaction: marks.reactions.get(row.id) ?? null,
    user_is_author: marks.viewerRef !== null && row.author_ref === marks.viewerRef,
    replies: [],
  };
}

/** The comment as webhook payloads carry it. */
export function eventComment(row: CommentRow, threadUrl: string) {
  return {
    id: row.id,
    thread_url: threadUrl,
    author_name: row.author_name,
    content: row.is_deleted ? null : row.content,
    content_html: row.is_deleted ? null : row.content_html,
    mentions: row.is_deleted ? [] : (JSON.parse(row.mentions) as Mention[]),
    status: row.status,
    parent_id: row.parent_id,
    created_at: row.created_at,
  };
}

/** Why the spam pipeline held a comment (src/spam/pipeline.ts), from its column; empty when it held nothing. */
export function spamReasonsOf(column: string | null): Array<{ check: string; detail: string; code?: string; values?: Record<string, unknown> }> {
  return column === null ? [] : JSON.parse(column);
}
