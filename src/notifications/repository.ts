import type { Kysely } from 'kysely';
import { nowIso } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import { afterKey, pageOf } from '../http/cursor.ts';
import { newId } from '../ids.ts';
import type { SiteReader } from './unread.ts';

function followRows(db: Kysely<Database>, reader: SiteReader) {
  return db
    .selectFrom('follows as f')
    .innerJoin('threads as t', 't.id', 'f.thread_id')
    .select(['f.id', 'f.site_id', 't.url_key as thread_url', 't.title as thread_title', 'f.created_at'])
    .where('f.site_id', '=', reader.siteId)
    .where('f.user_id', '=', reader.userId);
}

export type FollowRow = Awaited<ReturnType<ReturnType<typeof followRows>['executeTakeFirstOrThrow']>>;

/** The reader's follow of a thread, made unless there is one; `made` says which. */
export async function followThread(db: Kysely<Database>, reader: SiteReader, threadId: string): Promise<{ follow: FollowRow; made: boolean }> {
  const inserted = await db
    .insertInto('follows')
    .values({ id: newId('fol'), site_id: reader.siteId, user_id: reader.userId, thread_id: threadId, created_at: nowIso() })
    .onConflict((oc) => oc.columns(['thread_id', 'user_id']).doNothing())
    .executeTakeFirst();
  const follow = await followRows(db, reader).where('f.thread_id', '=', threadId).executeTakeFirstOrThrow();
  return { follow, made: Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0 };
}

/** Removes the reader's follow; false when they have none of that id. */
export async function unfollow(db: Kysely<Database>, reader: SiteReader, id: string): Promise<boolean> {
  const deleted = await db.deleteFrom('follows').where('id', '=', id).where('site_id', '=', reader.siteId).where('user_id', '=', reader.userId).executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0;
}

const FOLLOWS_ORDER = 'follows-newest';
const NOTIFICATIONS_ORDER = 'notifications-newest';

/** The reader's follows, newest first (ids are time-ordered), after the cursor's id; only that thread's when `threadId` is given. */
export async function listFollows(db: Kysely<Database>, reader: SiteReader, options: { threadId?: string; afterId?: string; limit: number }) {
  let rows = followRows(db, reader);
  if (options.threadId !== undefined) rows = rows.where('f.thread_id', '=', options.threadId);
  if (options.afterId !== undefined) rows = rows.where(afterKey(['f.id'], [options.afterId], 'desc'));
  return pageOf(await rows.orderBy('f.id', 'desc').limit(options.limit + 1).execute(), options.limit, (row) => [row.id], FOLLOWS_ORDER);
}

/**
 * The reader's notifications, newest first, after the cursor's id, with what the views of them show:
 * the comment's thread, author, text and visibility to the public.
 */
export async function listNotifications(db: Kysely<Database>, reader: SiteReader, options: { unreadOnly: boolean; afterId?: string; limit: number }) {
  let rows = db
    .selectFrom('notifications as n')
    .innerJoin('comments as c', 'c.id', 'n.comment_id')
    .innerJoin('threads as t', 't.id', 'n.thread_id')
    .select(['n.id', 'n.kind', 'n.comment_id', 'n.data', 'n.created_at', 'n.read_at', 't.url_key as thread_url', 't.title as thread_title'])
    .select(['c.author_name', 'c.content', 'c.mentions', 'c.status', 'c.moderation_status', 'c.is_deleted'])
    .where('n.site_id', '=', reader.siteId)
    .where('n.user_id', '=', reader.userId);
  if (options.unreadOnly) rows = rows.where('n.read_at', 'is', null);
  if (options.afterId !== undefined) rows = rows.where(afterKey(['n.id'], [options.afterId], 'desc'));
  return pageOf(await rows.orderBy('n.id', 'desc').limit(options.limit + 1).execute(), options.limit, (row) => [row.id], NOTIFICATIONS_ORDER);
}

export const PAGE_ORDERS = { follows: FOLLOWS_ORDER, notifications: NOTIFICATIONS_ORDER } as const;

/** Marks the reader's notifications read: these ids of theirs, or all of them (`ids` null). */
export async function markRead(db: Kysely<Database>, reader: SiteReader, ids: string[] | null): Promise<void> {
  let update = db.updateTable('notifications').set({ read_at: nowIso() }).where('site_id', '=', reader.siteId).where('user_id', '=', reader.userId).where('read_at', 'is', null);
  if (ids !== null) update = update.where('id', 'in', ids);
  await update.execute();
}

/** An erased reader's follows and notifications (commenters/erase.ts), in the erasure's transaction. */
export async function forgetFollowsAndNotifications(trx: Kysely<Database>, reader: SiteReader): Promise<void> {
  await trx.deleteFrom('follows').where('site_id', '=', reader.siteId).where('user_id', '=', reader.userId).execute();
  await trx.deleteFrom('notifications').where('site_id', '=', reader.siteId).where('user_id', '=', reader.userId).execute();
}
