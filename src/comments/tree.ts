import type { CommentView, ViewRow } from './view.ts';

/** Levels of replies nested in one response: deep enough for any real thread, bounded for the serialiser. */
export const MAX_NESTING = 200;

/**
 * Nests replies (already filtered row by row for the viewer, oldest first, so a parent always comes
 * before its children) under their roots. A reply whose parent is not in the set is hidden by that
 * ancestor and is dropped with its subtree; a deleted reply is kept as a placeholder only while it
 * still has replies to show. `cut` names the comments whose subtree the reply cap truncated.
 * Nesting in one response stops at MAX_NESTING levels (the comment there is marked
 * has_more_replies), so a chain of any depth is read by following GET /v1/comments/:id down it.
 */
export function nestReplies(
  roots: CommentView[],
  replies: ViewRow[],
  toView: (row: ViewRow) => CommentView,
  cut: ReadonlySet<string> = new Set(),
): void {
  const byId = new Map<string, { view: CommentView; depth: number }>(roots.map((root) => [root.id, { view: root, depth: 0 }]));
  const nested: CommentView[] = [];
  for (const row of replies) {
    const parent = row.parent_id === null ? undefined : byId.get(row.parent_id);
    if (!parent) continue;
    if (parent.depth === MAX_NESTING) {
      parent.view.has_more_replies = true;
      continue;
    }
    const view = toView(row);
    parent.view.replies.push(view);
    byId.set(view.id, { view, depth: parent.depth + 1 });
    nested.push(view);
  }
  for (const id of cut) {
    const entry = byId.get(id);
    if (entry) entry.view.has_more_replies = true;
  }
  // Children come after their parents, so walking backwards settles every subtree before its parent
  // (iteratively: depth is unlimited and must not cost stack).
  for (let i = nested.length - 1; i >= 0; i--) dropEmptyPlaceholders(nested[i]);
  for (const root of roots) dropEmptyPlaceholders(root);
}

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

/** Keeps `cap` replies per root; the root and the parent of the first reply left out are marked cut. */
export function capPerRoot(replies: ViewRow[], cap: number): { kept: ViewRow[]; cut: Set<string> } {
  const perRoot = new Map<string, number>();
  const kept: ViewRow[] = [];
  const cut = new Set<string>();
  for (const row of replies) {
    const seen = perRoot.get(row.root_id) ?? 0;
    perRoot.set(row.root_id, seen + 1);
    if (seen < cap) kept.push(row);
    else if (seen === cap) cut.add(row.root_id).add(row.parent_id ?? row.root_id);
  }
  return { kept, cut };
}
