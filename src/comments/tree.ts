import type { CommentRow, CommentView } from './view.ts';

/**
 * Nests replies (already filtered row by row for the viewer, oldest first, so a parent always comes
 * before its children) under their roots. A reply whose parent is not in the set is hidden by that
 * ancestor and is dropped with its subtree; a deleted reply is kept as a placeholder only while it
 * still has replies to show. `cut` names the comments whose subtree the reply cap truncated.
 */
export function nestReplies(
  roots: CommentView[],
  replies: CommentRow[],
  toView: (row: CommentRow) => CommentView,
  cut: ReadonlySet<string> = new Set(),
): void {
  const byId = new Map<string, CommentView>(roots.map((root) => [root.id, root]));
  const nested: CommentView[] = [];
  for (const row of replies) {
    const parent = row.parent_id === null ? undefined : byId.get(row.parent_id);
    if (!parent) continue;
    const view = toView(row);
    parent.replies.push(view);
    byId.set(view.id, view);
    nested.push(view);
  }
  for (const id of cut) {
    const view = byId.get(id);
    if (view) view.has_more_replies = true;
  }
  // Children come after their parents, so walking backwards settles every subtree before its parent
  // (iteratively: depth is unlimited and must not cost stack).
  for (let i = nested.length - 1; i >= 0; i--) dropEmptyPlaceholders(nested[i]);
  for (const root of roots) dropEmptyPlaceholders(root);
}

export function isEmptyPlaceholder(view: CommentView): boolean {
  return view.is_deleted && view.replies.length === 0;
}

function dropEmptyPlaceholders(node: CommentView): void {
  if (node.replies.some(isEmptyPlaceholder)) node.replies = node.replies.filter((reply) => !isEmptyPlaceholder(reply));
}
