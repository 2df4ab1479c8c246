import type { CommentRow } from '../comments/view.ts';

/** What undoing an action restores, as the action knows it. */
export interface UndoFacts {
  /** The comment's state before the action. */
  before: { status: string; moderation_status: string | null };
  /** dismiss_flags: when it dismissed the flags it dismissed (those come back). */
  dismissed_at?: string;
  /** shadow_ban: the ban it made (lifted again). */
  ban_id?: string;
  /** unhide: the shadow ban it lifted (made again, with its reason). */
  lifted_shadow_ban?: { reason: string | null };
}

/** The comment right after the action: an undo finds it so, or something changed it since. */
export interface CommentAfter {
  status: string;
  moderation_status: string | null;
  updated_at: string;
  flag_count: number;
  is_deleted: number;
}

export type UndoState = UndoFacts & { after: CommentAfter };

export const commentAfter = (row: CommentRow): CommentAfter => ({
  status: row.status,
  moderation_status: row.moderation_status,
  updated_at: row.updated_at,
  flag_count: Number(row.flag_count),
  is_deleted: Number(row.is_deleted),
});

/** moderation_log.undo of an action that left the comment as `row`. */
export const undoColumn = (facts: UndoFacts, row: CommentRow) => JSON.stringify({ ...facts, after: commentAfter(row) } satisfies UndoState);
