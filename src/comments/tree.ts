import type { CommentView, ViewRow } from './view.ts';

/** Levels of replies nested in one response: deep enough for any real thread, bounded for the serialiser. */
export const MAX_NESTING = 200;

/**
 * Nests one part of a comment's subtree (rows in pre-order) under it: a reply under its parent when
 * the parent is in the part, else directly under the comment, where its parent_id tells a client
 * that has the earlier parts where it belongs. `cut` names the comments with replies left for later
 * parts. A deleted reply is kept as a placeholder while it has replies here or left.
 */
export function nestSubtreePart(root: CommentView, rows: ViewRow[], toView: (row: ViewRow) => CommentView, cut: ReadonlySet<string>): void {
  const byId = new Map<string, CommentView>([[root.id, root]]);
  const nested: CommentView[] = [];
  for (const row of rows) {
    const view = toView(row);
    (byId.get(row.parent_id!) ?? root).replies.push(view);
    byId.set(view.id, view);
    nested.push(view);
  }
  for (const id of cut) {
    const view = byId.get(id);
    if (view) view.has_more_replies = true;
  }
  for (let i = nested.length - 1; i >= 0; i--) dropEmptyPlaceholders(nested[i]);
  dropEmptyPlaceholders(root);
}

/** A deleted comment with no reply to show, here or beyond a cut: left out. */
export function isEmptyPlaceholder(view: CommentView): boolean {
  return view.is_deleted && view.replies.length === 0 && !view.has_more_replies;
}

function dropEmptyPlaceholders(node: CommentView): void {
  if (node.replies.some(isEmptyPlaceholder)) node.replies = node.replies.filter((reply) => !isEmptyPlaceholder(reply));
}

/**
 * The first replies of a comment's subtree in the order lists nest them (depth first, oldest first
 * under each comment), as GET /v1/comments/:id walks them: `cut` names the comments with replies
 * left out (beyond the part, or deeper than MAX_NESTING), `more` says whether any reply is left
 * beyond the part, where the part's last reply is the cursor to the rest.
 */
export interface SubtreePart {
  rows: ViewRow[];
  cut: Set<string>;
  more: boolean;
}

/**
 * A whole visible subtree (its replies filtered row by row for the viewer, oldest first) as a part:
 * a reply whose parent is not among them is hidden by that ancestor and left out with its subtree.
 */
export function wholeSubtree(rootId: string, replies: ViewRow[]): SubtreePart {
  const children = new Map<string, ViewRow[]>();
  for (const row of replies) {
    const siblings = children.get(row.parent_id!);
    if (siblings) siblings.push(row);
    else children.set(row.parent_id!, [row]);
  }
  const rows: ViewRow[] = [];
  const cut = new Set<string>();
  // Iteratively: depth is unlimited and must not cost stack. Siblings are pushed newest first, so the oldest comes off first.
  const stack = [...(children.get(rootId) ?? [])].reverse().map((row) => ({ row, depth: 1 }));
  while (stack.length > 0) {
    const { row, depth } = stack.pop()!;
    rows.push(row);
    const below = children.get(row.id);
    if (!below) continue;
    if (depth === MAX_NESTING) cut.add(row.id);
    else for (let i = below.length - 1; i >= 0; i--) stack.push({ row: below[i], depth: depth + 1 });
  }
  return { rows, cut, more: false };
}

/** The part's first `count` replies: the comments whose replies are left out are marked cut. */
export function firstOfPart(rootId: string, part: SubtreePart, count: number): SubtreePart {
  if (count >= part.rows.length) return part;
  const rows = part.rows.slice(0, count);
  const kept = new Set([rootId, ...rows.map((row) => row.id)]);
  const cut = new Set([...part.cut].filter((id) => kept.has(id)));
  for (const row of part.rows.slice(count)) if (kept.has(row.parent_id!)) cut.add(row.parent_id!);
  return { rows, cut, more: true };
}
