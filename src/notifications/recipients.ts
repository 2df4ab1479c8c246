import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { Mention } from '../formatting/render.ts';

export type NotificationKind = 'reply' | 'mention' | 'followed_thread' | 'moderation';

/** A public comment as the fan-out reads it. */
export interface PublishedComment {
  id: string;
  site_id: string;
  thread_id: string;
  parent_id: string | null;
  author_ref: string | null;
  mentions: string;
}

export interface Recipient {
  userId: string;
  kind: NotificationKind;
}

/** Followers handled per transaction: one multi-row insert each, and the cursor moves past them in the same commit. */
export const FOLLOWERS_PER_BATCH = 500;

/** The comment, if the public sees it now: a job for one deleted, removed or held since tells no one. */
export async function publicComment(db: Kysely<Database>, commentId: string): Promise<PublishedComment | undefined> {
  return db
    .selectFrom('comments')
    .select(['id', 'site_id', 'thread_id', 'parent_id', 'author_ref', 'mentions'])
    .where('id', '=', commentId)
    .where('status', '=', 'published')
    .where('moderation_status', 'is', null)
    .where('is_deleted', '=', 0)
    .executeTakeFirst();
}

/**
 * The readers a comment tells by name: its parent's author (`reply`) and the readers it mentions
 * (`mention`; a parent's author it also mentions hears of it as a reply), never its own author. Only
 * the site's readers not erased: a parent written by a guest, a key or staff tells no one.
 */
export async function namedRecipients(db: Kysely<Database>, comment: PublishedComment): Promise<Recipient[]> {
  const parentAuthor = comment.parent_id === null ? undefined : (await db.selectFrom('comments').select('author_ref').where('id', '=', comment.parent_id).executeTakeFirst())?.author_ref;
  const named = new Map<string, NotificationKind>();
  for (const mention of JSON.parse(comment.mentions) as Mention[]) named.set(mention.user_id, 'mention');
  if (parentAuthor) named.set(parentAuthor, 'reply');
  named.delete(comment.author_ref ?? '');
  if (named.size === 0) return [];
  const readers = await db
    .selectFrom('site_users')
    .select('id')
    .where('site_id', '=', comment.site_id)
    .where('id', 'in', [...named.keys()])
    .where('erased_at', 'is', null)
    .execute();
  return readers.map((reader) => ({ userId: reader.id, kind: named.get(reader.id)! }));
}

/** The thread's next followers after `cursor` (a user id; '' before the first), in user order. */
export async function followersAfter(db: Kysely<Database>, threadId: string, cursor: string): Promise<string[]> {
  const rows = await db
    .selectFrom('follows')
    .select('user_id')
    .where('thread_id', '=', threadId)
    .where('user_id', '>', cursor)
    .orderBy('user_id')
    .limit(FOLLOWERS_PER_BATCH)
    .execute();
  return rows.map((row) => row.user_id);
}
