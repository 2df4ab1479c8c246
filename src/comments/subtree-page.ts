import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { invalid } from '../errors.ts';
import { pathBetween, readViewRows, repliesOf, type SiblingKey, type WalkedReply } from './repository.ts';
import { MAX_NESTING, nestSubtreePart } from './tree.ts';
import { NO_MARKS, toView, type CommentRow, type CommentView, type CountsRow, type ViewerMarks, type ViewRow } from './view.ts';
import type { Viewer } from './visibility.ts';

/** Replies in one answer of GET /v1/comments/:id, unless `limit` asks for fewer. */
export const SUBTREE_PAGE_DEFAULT = 100;
export const SUBTREE_PAGE_MAX = 200;

export interface SubtreeQuery {
  limit?: number;
  /** The `next_cursor` of the previous part: the last reply it walked. */
  after?: string;
}

/** A comment with one part of its subtree, and where the next part starts (null: none is left). */
export interface CommentPage extends CommentView {
  next_cursor: string | null;
}

/** Replies under one comment still to walk, oldest first: those read and not walked yet, then any after the last read. */
interface Siblings {
  parentId: string;
  /** Their level below the answer's comment. */
  depth: number;
  read: WalkedReply[];
  /** The last one read (or walked before this answer): the next read starts after it. */
  after: SiblingKey | null;
  /** No reply is left after `after`. */
  exhausted: boolean;
}

export interface Walk {
  /** The replies walked, in pre-order, each with its level. */
  walked: Array<WalkedReply & { depth: number }>;
  /** Comments some of whose replies are left for the next part, or deeper than one answer nests. */
  cut: Set<string>;
  /** Whether replies are left. */
  more: boolean;
}

/**
 * Walks the subtree depth first, replies oldest first under each comment (the order in which lists
 * nest them), from `start` (the siblings still to walk on each level, deepest last) for at most
 * `limit` replies. A comment's replies are read when the walk comes to them, as many as the answer
 * can still take plus one, in one index range, and only when the read of the comment found it has
 * some. So an answer costs at most one query per reply it holds, however large the subtree. A
 * deleted reply is walked like any other (and left out of the answer when nothing is below it).
 */
async function walk(db: Kysely<Database>, viewer: Viewer, start: Siblings[], limit: number): Promise<Walk> {
  const stack = start;
  const walked: Walk['walked'] = [];
  const cut = new Set<string>();
  while (stack.length > 0) {
    const level = stack[stack.length - 1];
    if (level.read.length === 0 && !level.exhausted) {
      const wanted = limit + 1 - walked.length;
      level.read = await repliesOf(db, viewer, level.parentId, level.after, wanted);
      level.exhausted = level.read.length < wanted;
    }
    const reply = level.read.shift();
    if (!reply) {
      stack.pop();
      continue;
    }
    if (walked.length === limit) {
      // The first reply left out: its parent has replies left, and so has any comment on the way
      // down to it with replies still to walk (one whose last reply is on the way has none).
      for (const open of stack) if (open === level || open.read.length > 0 || !open.exhausted) cut.add(open.parentId);
      return { walked, cut, more: true };
    }
    level.after = reply;
    walked.push({ ...reply, depth: level.depth });
    if (!reply.has_replies) continue;
    if (level.depth === MAX_NESTING) cut.add(reply.id);
    else stack.push({ parentId: reply.id, depth: level.depth + 1, read: [], after: null, exhausted: false });
  }
  return { walked, cut, more: false };
}

/** The first `limit` replies of a comment's subtree, walked as a first part of GET /v1/comments/:id is. */
export async function firstReplies(db: Kysely<Database>, viewer: Viewer, commentId: string, limit: number): Promise<Walk> {
  return walk(db, viewer, [{ parentId: commentId, depth: 1, read: [], after: null, exhausted: false }], limit);
}

/**
 * Where a walk resumes after reply `after` of comment `rootId`: on each level from the top down to
 * it, the siblings after the reply on the way, then its own replies. Below a reply the viewer may no
 * longer see, nothing is walked. 400 for a cursor that is not a reply of this comment's subtree.
 */
async function resumeAfter(db: Kysely<Database>, viewer: Viewer, rootId: string, after: string): Promise<Siblings[]> {
  const path = await pathBetween(db, viewer, rootId, after, MAX_NESTING);
  if (!path) throw invalid('querystring/after', "must be a next_cursor of this comment's replies");
  const hidden = path.findIndex((reply) => !reply.visible);
  const shown = hidden === -1 ? path : path.slice(0, hidden + 1);
  const levels: Siblings[] = shown.map((reply) => ({ parentId: reply.parent_id, depth: reply.depth, read: [], after: reply, exhausted: !reply.has_later }));
  const last = path[path.length - 1];
  if (hidden === -1 && last.has_replies && last.depth < MAX_NESTING) {
    levels.push({ parentId: last.id, depth: last.depth + 1, read: [], after: null, exhausted: false });
  }
  return levels;
}

/**
 * A comment (already found visible to the viewer) with one part of its visible subtree: at most
 * `limit` replies in the order lists nest them, from the start or after `query.after`. Replies whose
 * parent is in the part are nested under it; the others (a part after the first) come directly under
 * the comment, their parent_id saying where they belong. Every reply with replies of its own left for
 * later parts is marked has_more_replies, and so is the comment while any part is left, which
 * `next_cursor` fetches. `marksFor` gives the
 * viewer's marks on the rows read (none by default). Returns the rows read too.
 */
export async function readCommentPage(
  db: Kysely<Database>,
  viewer: Viewer,
  comment: CommentRow & CountsRow & { thread_url: string },
  query: SubtreeQuery,
  marksFor: (rows: ViewRow[]) => Promise<ViewerMarks> = async () => NO_MARKS,
): Promise<{ page: CommentPage; rows: ViewRow[] }> {
  const limit = query.limit ?? SUBTREE_PAGE_DEFAULT;
  const start: Siblings[] = query.after
    ? await resumeAfter(db, viewer, comment.id, query.after)
    : [{ parentId: comment.id, depth: 1, read: [], after: null, exhausted: false }];
  const { walked, cut, more } = await walk(db, viewer, start, limit);
  // The comment itself is marked whenever its subtree goes on in a next part, as a list marks a cut tree's top.
  if (more) cut.add(comment.id);
  const rowOf = new Map((await readViewRows(db, walked.map((reply) => reply.id))).map((row) => [row.id, row]));
  // A reply no longer there when its row is read is left out.
  const replies = walked.map((reply) => rowOf.get(reply.id)).filter((row) => row !== undefined);
  const rows = [comment, ...replies];
  const marks = await marksFor(rows);
  const view = (row: ViewRow) => toView(row, comment.thread_url, marks);
  const page: CommentPage = { ...view(comment), next_cursor: more ? walked[walked.length - 1].id : null };
  nestSubtreePart(page, replies, view, cut);
  return { page, rows };
}
