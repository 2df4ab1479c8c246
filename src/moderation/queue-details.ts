import type { Kysely } from 'kysely';
import { nowIso } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import { inForce } from './bans.ts';

/** A queue item's newest flag reasons. */
const REASONS_SHOWN = 10;

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

export interface Standing {
  standing: 'banned' | 'shadow_banned' | null;
  ban_expires_at: string | null;
}

export const NO_STANDING: Standing = { standing: null, ban_expires_at: null };

/**
 * The bans in force of a page's authors, in one statement, by `site_id author_ref`: an outright ban
 * outranks a shadow ban (its author can write nothing at all).
 */
export async function standingsOf(db: Kysely<Database>, authors: Array<{ site_id: string; author_ref: string | null }>) {
  const byAuthor = new Map<string, Standing>();
  const refs = [...new Set(authors.flatMap((author) => (author.author_ref === null ? [] : [author.author_ref])))];
  if (refs.length === 0) return byAuthor;
  const sites = [...new Set(authors.map((author) => author.site_id))];
  const rows = await db
    .selectFrom('bans')
    .select(['site_id', 'author_ref', 'ban_type', 'expires_at'])
    .where('site_id', 'in', sites)
    .where('author_ref', 'in', refs)
    .where(inForce('expires_at', nowIso()))
    .execute();
  for (const row of rows) {
    const key = `${row.site_id} ${row.author_ref}`;
    if (row.ban_type === 'ban') byAuthor.set(key, { standing: 'banned', ban_expires_at: row.expires_at });
    else if (!byAuthor.has(key)) byAuthor.set(key, { standing: 'shadow_banned', ban_expires_at: null });
  }
  return byAuthor;
}
