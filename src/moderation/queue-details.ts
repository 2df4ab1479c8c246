import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';

/** Characters of a parent comment shown beside a reply in the queue. */
const EXCERPT_LENGTH = 200;
/** A queue item's newest flag reasons. */
const REASONS_SHOWN = 10;

export function excerpt(content: string | null): string | null {
  if (content === null) return null;
  const characters = [...content];
  return characters.length <= EXCERPT_LENGTH ? content : `${characters.slice(0, EXCERPT_LENGTH).join('')}…`;
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

export type AuthorKind = 'user' | 'key' | 'guest';

/** Who wrote a comment: a site user (usr_), an API key (key_), or a guest (no identity). */
export function authorKind(authorRef: string | null): AuthorKind {
  if (authorRef === null) return 'guest';
  return authorRef.startsWith('key_') ? 'key' : 'user';
}

/**
 * Each comment's author with their record on its site (comments by status, kept by triggers,
 * migration 0013); guests have none.
 */
export async function authorsOf(db: Kysely<Database>, comments: Array<{ site_id: string; author_ref: string | null }>) {
  const refs = [...new Set(comments.flatMap((comment) => (comment.author_ref === null ? [] : [comment.author_ref])))];
  const rows =
    refs.length === 0
      ? []
      : await db
          .selectFrom('author_counts')
          .select(['site_id', 'author_ref', 'published', 'pending', 'removed', 'spam'])
          .where('author_ref', 'in', refs)
          .where('site_id', 'in', [...new Set(comments.map((comment) => comment.site_id))])
          .execute();
  const counts = new Map(rows.map((row) => [`${row.site_id} ${row.author_ref}`, row]));
  return (comment: { site_id: string; author_ref: string | null }) => {
    const row = comment.author_ref === null ? undefined : counts.get(`${comment.site_id} ${comment.author_ref}`);
    return {
      id: comment.author_ref,
      kind: authorKind(comment.author_ref),
      comments: row ? { published: Number(row.published), pending: Number(row.pending), removed: Number(row.removed), spam: Number(row.spam) } : null,
    };
  };
}
