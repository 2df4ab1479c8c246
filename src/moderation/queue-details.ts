import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';

/** Characters of a parent comment shown beside a reply in the queue. */
const EXCERPT_LENGTH = 200;
/** A queue item's newest flag reasons. */
const REASONS_SHOWN = 10;

export function excerpt(content: string | null): string | null {
  // UTF-16 length bounds the characters: most contents need no counting.
  if (content === null || content.length <= EXCERPT_LENGTH) return content;
  let end = 0;
  for (let characters = 0; characters < EXCERPT_LENGTH && end < content.length; characters += 1) end += content.codePointAt(end)! > 0xffff ? 2 : 1;
  return end >= content.length ? content : `${content.slice(0, end)}…`;
}

/** The newest reasons of each comment's flags not dismissed yet. */
export async function flagReasonsOf(db: Kysely<Database>, commentIds: string[]) {
  const rows = await db
    .selectFrom('flags')
    .select(['comment_id', 'reason', 'created_at'])
    .where('comment_id', 'in', commentIds)
    .where('dismissed_at', 'is', null)
    .orderBy('created_at', 'desc')
    .execute();
  const byComment = new Map<string, Array<{ reason: string | null; created_at: string }>>();
  for (const row of rows) {
    const reasons = byComment.get(row.comment_id) ?? [];
    if (reasons.length < REASONS_SHOWN) reasons.push({ reason: row.reason, created_at: row.created_at });
    byComment.set(row.comment_id, reasons);
  }
  return byComment;
}

export type AuthorKind = 'user' | 'key' | 'staff' | 'guest';

/** Who wrote a comment: a site user (usr_), an API key (key_), a staff member (stf_, from the dashboard), or a guest (no identity). */
export function authorKind(authorRef: string | null): AuthorKind {
  if (authorRef === null) return 'guest';
  if (authorRef.startsWith('stf_')) return 'staff';
  return authorRef.startsWith('key_') ? 'key' : 'user';
}
