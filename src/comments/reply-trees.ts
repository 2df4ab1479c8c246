import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { LIST_REPLY_CAP, listReplies } from './repository.ts';
import { capPerRoot, nestReplies } from './tree.ts';
import { NO_MARKS, toView, type CommentView, type ViewerMarks, type ViewRow } from './view.ts';
import type { Viewer } from './visibility.ts';

/**
 * These top-level rows as comments with their visible replies nested under them (capped per
 * top-level comment as every list is), and every row read. `marksFor` gives the viewer's marks on
 * those rows (none by default).
 */
export async function readReplyTrees(
  db: Kysely<Database>,
  viewer: Viewer,
  rows: ViewRow[],
  threadUrl: string,
  marksFor: (rows: ViewRow[]) => Promise<ViewerMarks> = async () => NO_MARKS,
): Promise<{ roots: CommentView[]; rows: ViewRow[] }> {
  const replies = await listReplies(db, viewer, rows.map((row) => row.id), LIST_REPLY_CAP);
  const { kept, cut } = capPerRoot(replies, LIST_REPLY_CAP);
  const all = [...rows, ...kept];
  const marks = await marksFor(all);
  const view = (row: ViewRow) => toView(row, threadUrl, marks);
  const roots = rows.map(view);
  nestReplies(roots, kept, view, cut);
  return { roots, rows: all };
}
