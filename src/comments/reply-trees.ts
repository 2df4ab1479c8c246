import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { LIST_REPLY_CAP, listReplies, readViewRows } from './repository.ts';
import { firstReplies, type CommentPage } from './subtree-page.ts';
import { firstOfPart, nestSubtreePart, wholeSubtree, type SubtreePart } from './tree.ts';
import { NO_MARKS, toView, type ViewerMarks, type ViewRow } from './view.ts';
import type { Viewer } from './visibility.ts';

/**
 * Replies one list page nests in all, and about how many bytes of them: a page of `limit` top-level
 * comments gives each an equal share (and never more than LIST_REPLY_CAP replies), so what a page
 * costs to read, serialise and send is bounded whatever its threads hold, and each top-level
 * comment's part depends on it and the page size alone (so it is kept per page size).
 */
const PAGE_REPLIES = 1000;
const PAGE_REPLY_BYTES = 1024 * 1024;
/** A reply's JSON besides its text, its HTML, its mentions, badges, name and thread URL (about 600 bytes with three kinds of reaction counted), rounded up. */
const REPLY_BYTES = 640;

/** How much of its subtree each top-level comment of a page of `limit` nests: replies, and bytes of them. */
export function replyShare(limit: number): { replies: number; bytes: number } {
  return { replies: Math.min(LIST_REPLY_CAP, Math.max(1, Math.floor(PAGE_REPLIES / limit))), bytes: Math.floor(PAGE_REPLY_BYTES / limit) };
}

/**
 * These top-level rows as comments with the first part of their visible replies nested under them
 * (their share of a page of `limit`, as a first part of GET /v1/comments/:id is), and every row read. A comment whose replies did not all fit
 * gets `next_cursor`, its part's last reply, which GET /v1/comments/:id takes as `after` for the
 * rest. The replies are read oldest first in one query, their share plus one under each comment;
 * only a subtree larger than its share is walked as GET /v1/comments/:id walks it (depth first),
 * which costs a query per reply with replies of its own. `marksFor` gives the viewer's marks on the
 * rows (none by default).
 */
export async function readReplyTrees(
  db: Kysely<Database>,
  viewer: Viewer,
  rows: ViewRow[],
  threadUrl: string,
  limit: number,
  marksFor: (rows: ViewRow[]) => Promise<ViewerMarks> = async () => NO_MARKS,
): Promise<{ roots: CommentPage[]; rows: ViewRow[] }> {
  const share = replyShare(limit);
  const repliesOf = new Map<string, ViewRow[]>(rows.map((row) => [row.id, []]));
  for (const reply of await listReplies(db, viewer, rows.map((row) => row.id), share.replies)) repliesOf.get(reply.root_id)?.push(reply);
  const larger = rows.filter((row) => repliesOf.get(row.id)!.length > share.replies);
  const walks = await Promise.all(larger.map((row) => firstReplies(db, viewer, row.id, share.replies)));
  const walkedRows = new Map((await readViewRows(db, walks.flatMap((walk) => walk.walked.map((reply) => reply.id)))).map((row) => [row.id, row]));
  const parts = new Map<string, SubtreePart>();
  for (const [index, row] of larger.entries()) {
    const { walked, cut, more } = walks[index];
    // A reply gone by the time its row is read is left out.
    parts.set(row.id, { rows: walked.map((reply) => walkedRows.get(reply.id)).filter((reply) => reply !== undefined), cut, more });
  }
  for (const row of rows) if (!parts.has(row.id)) parts.set(row.id, wholeSubtree(row.id, repliesOf.get(row.id)!));
  for (const row of rows) parts.set(row.id, firstOfPart(row.id, parts.get(row.id)!, fitting(parts.get(row.id)!.rows, share.bytes, threadUrl)));

  const all = [...rows, ...[...parts.values()].flatMap((part) => part.rows)];
  const marks = await marksFor(all);
  const view = (row: ViewRow) => toView(row, threadUrl, marks);
  const roots = rows.map((row) => {
    const { rows: replies, cut, more } = parts.get(row.id)!;
    const root: CommentPage = { ...view(row), next_cursor: more ? (replies.at(-1)?.id ?? null) : null };
    if (more) cut.add(row.id);
    nestSubtreePart(root, replies, view, cut);
    return root;
  });
  return { roots, rows: all };
}

/** How many of these replies (at least one) fit in `bytes` of JSON, about. */
function fitting(replies: ViewRow[], bytes: number, threadUrl: string): number {
  const each = REPLY_BYTES + Buffer.byteLength(threadUrl);
  let used = 0;
  for (const [index, reply] of replies.entries()) {
    const text = reply.content === null || reply.is_deleted ? 0 : Buffer.byteLength(reply.content) + Buffer.byteLength(reply.content_html ?? '') + reply.mentions.length;
    used += each + Buffer.byteLength(reply.author_name) + reply.author_badges.length + text;
    if (used > bytes) return Math.max(1, index);
  }
  return replies.length;
}
