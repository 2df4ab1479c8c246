import { requireCredential, type Caller } from '../auth/caller.ts';
import { findThread } from '../comments/repository.ts';
import { threadForNewComment } from '../comments/listing.ts';
import { assertAllowedHost, threadKey } from '../comments/thread-url.ts';
import type { Db } from '../db/connect.ts';
import { AppError, invalid } from '../errors.ts';
import { decodeCursor } from '../http/cursor.ts';
import { sourceText } from '../mail/compose-parts.ts';
import { siteOrNotFound } from '../sites/repository.ts';
import { followThread, listFollows, listNotifications, markRead, PAGE_ORDERS, unfollow, type FollowRow } from './repository.ts';
import type { SiteReader } from './unread.ts';

/** Characters of a comment a notification shows. */
const EXCERPT_CHARACTERS = 140;

/**
 * The reader a request is from, on the site it names: follows and notifications are a reader's own,
 * so a session only (an API key: 403); another site's session learns nothing of this site (404).
 */
export function readerOn(caller: Caller, siteId: string): SiteReader {
  requireCredential(caller);
  if (caller.kind !== 'session') throw new AppError('forbidden', "Follows and notifications are a reader's: they need the reader's session, not an API key");
  if (caller.siteId !== siteId) throw new AppError('not_found', `No site ${siteId}`);
  return { siteId, userId: caller.userId };
}

function followView(row: FollowRow) {
  return { id: row.id, site_id: row.site_id, thread_url: row.thread_url, thread_title: row.thread_title, created_at: row.created_at };
}

/**
 * Follows a page of the site: its thread is made if no one has commented there yet. Says whether
 * the follow is new (201) or the reader already had it (200).
 */
export async function follow(db: Db, caller: Caller, input: { site_id: string; thread_url: string }) {
  const reader = readerOn(caller, input.site_id);
  const site = await siteOrNotFound(db.kysely, reader.siteId);
  const url = threadKey(input.thread_url);
  assertAllowedHost(url, site.domains);
  // A closed thread is followed too (it may open again); only a page without one gets a new thread.
  const threadId = (await findThread(db.kysely, site.id, url.href))?.id ?? (await threadForNewComment(db.kysely, site.id, url.href, undefined));
  const { follow: row, made } = await followThread(db.kysely, reader, threadId);
  return { follow: followView(row), made };
}

export async function stopFollowing(db: Db, caller: Caller, id: string): Promise<void> {
  requireCredential(caller);
  if (caller.kind !== 'session') throw new AppError('forbidden', "Follows are a reader's: they need the reader's session, not an API key");
  if (!(await unfollow(db.kysely, { siteId: caller.siteId, userId: caller.userId }, id))) throw new AppError('not_found', `No follow ${id}`);
}

export async function follows(db: Db, caller: Caller, query: { site_id: string; thread_url?: string; cursor?: string; limit?: number }) {
  const reader = readerOn(caller, query.site_id);
  const afterId = query.cursor === undefined ? undefined : (decodeCursor(query.cursor, PAGE_ORDERS.follows, ['string'])[0] as string);
  let threadId: string | undefined;
  if (query.thread_url !== undefined) {
    const thread = await findThread(db.kysely, reader.siteId, threadKey(query.thread_url, 'querystring/thread_url').href);
    if (!thread) return { follows: [], next_cursor: null };
    threadId = thread.id;
  }
  const page = await listFollows(db.kysely, reader, { threadId, afterId, limit: query.limit ?? 20 });
  return { follows: page.items.map(followView), next_cursor: page.next_cursor };
}

/** Up to EXCERPT_CHARACTERS characters (not UTF-16 units: an emoji is not cut in half), with … when cut. */
function excerpt(text: string): string {
  const characters = [...text];
  return characters.length <= EXCERPT_CHARACTERS ? text : `${characters.slice(0, EXCERPT_CHARACTERS - 1).join('')}…`;
}

type NotificationRow = Awaited<ReturnType<typeof listNotifications>>['items'][number];

/** A notification as its reader reads it: the comment's text only while the public may read it. */
function notificationView(row: NotificationRow) {
  const seen = row.status === 'published' && row.moderation_status === null && !row.is_deleted;
  const view = {
    id: row.id,
    kind: row.kind,
    comment_id: row.comment_id,
    thread_url: row.thread_url,
    thread_title: row.thread_title,
    created_at: row.created_at,
    read: row.read_at !== null,
    author_name: row.author_name,
    excerpt: seen ? excerpt(sourceText(row.content, row.mentions).trim()) : '',
  };
  if (row.kind !== 'moderation') return view;
  const { action, reason } = JSON.parse(row.data) as { action: string; reason: string | null };
  return { ...view, action, reason };
}

export async function notifications(db: Db, caller: Caller, query: { site_id: string; cursor?: string; limit?: number; unread_only?: boolean }) {
  const reader = readerOn(caller, query.site_id);
  const afterId = query.cursor === undefined ? undefined : (decodeCursor(query.cursor, PAGE_ORDERS.notifications, ['string'])[0] as string);
  const page = await listNotifications(db.kysely, reader, { unreadOnly: query.unread_only ?? false, afterId, limit: query.limit ?? 20 });
  return { reader, notifications: page.items.map(notificationView), next_cursor: page.next_cursor };
}

/** Marks the reader's notifications read: the ids given (others' are passed over), or all. */
export async function readNotifications(db: Db, caller: Caller, body: { site_id: string; ids?: string[]; all?: true }): Promise<SiteReader> {
  const reader = readerOn(caller, body.site_id);
  if ((body.ids === undefined) === (body.all === undefined)) throw invalid('body', 'must have either ids or all');
  await markRead(db.kysely, reader, body.ids ?? null);
  return reader;
}
