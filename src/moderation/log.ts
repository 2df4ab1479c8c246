import { sql } from 'kysely';
import type { Caller } from '../auth/caller.ts';
import type { Db } from '../db/connect.ts';
import { afterKey, decodeCursor, pageOf } from '../http/cursor.ts';
import { managedSite, sitesManagedBy } from '../sites/repository.ts';
import { describeActors } from './actors.ts';
import { timeBound } from './queue.ts';
import { excerpt } from '../comments/excerpt.ts';
import type { LOGGED_ACTIONS } from './schemas.ts';

const ORDER = 'log:newest';

export interface LogQuery {
  moderator?: string;
  action?: (typeof LOGGED_ACTIONS)[number];
  comment_id?: string;
  since?: string;
  until?: string;
  cursor?: string;
  limit?: number;
}

/** The log across sites: one (site_id) or every site the caller moderates. */
export async function moderationLogOf(db: Db, caller: Caller, query: LogQuery & { site_id?: string }) {
  const sites = query.site_id !== undefined ? [await managedSite(db.kysely, caller, query.site_id, 'moderate')] : await sitesManagedBy(db.kysely, caller, 'moderate');
  return moderationLog(db, sites.map((site) => site.id), query);
}

/** The moderation log of some sites, newest first: who did what to which comment, where, when and why. */
export async function moderationLog(db: Db, siteIds: string[], query: LogQuery) {
  const limit = query.limit ?? 20;
  // Checked before the sites, so that a malformed time is refused even for a caller with no site.
  const since = query.since !== undefined ? timeBound(query.since, 'querystring/since') : undefined;
  const until = query.until !== undefined ? timeBound(query.until, 'querystring/until') : undefined;
  if (siteIds.length === 0) return { entries: [], next_cursor: null };
  let select = db.kysely
    .selectFrom('moderation_log as l')
    .innerJoin('comments as c', 'c.id', 'l.comment_id')
    .innerJoin('threads as t', 't.id', 'c.thread_id')
    .select(['l.id', 'l.site_id', 'l.action', 'l.reason', 'l.moderator_ref', 'l.created_at', 'l.comment_id'])
    .select(['c.author_name', 'c.content', 'c.is_deleted', 't.url_key as thread_url'])
    .where('l.site_id', 'in', siteIds);
  if (query.moderator !== undefined) select = select.where('l.moderator_ref', '=', query.moderator);
  if (query.action !== undefined) select = select.where('l.action', '=', query.action);
  if (query.comment_id !== undefined) select = select.where('l.comment_id', '=', query.comment_id);
  if (since !== undefined) select = select.where('l.created_at', '>=', since);
  if (until !== undefined) select = select.where('l.created_at', '<', until);
  if (query.cursor !== undefined) select = select.where(afterKey(['l.created_at', 'l.id'], decodeCursor(query.cursor, ORDER, ['string', 'string']), 'desc'));
  const rows = await select.orderBy(sql`l.created_at desc, l.id desc`).limit(limit + 1).execute();
  const { items, next_cursor } = pageOf(rows, limit, (row) => [row.created_at, row.id], ORDER);
  const actors = await describeActors(db.kysely, items.map((row) => row.moderator_ref));
  return {
    entries: items.map((row) => ({
      id: row.id,
      site_id: row.site_id,
      action: row.action,
      reason: row.reason,
      created_at: row.created_at,
      moderator: actors(row.moderator_ref),
      comment: { id: row.comment_id, author_name: row.author_name, excerpt: row.is_deleted ? null : excerpt(row.content), thread_url: row.thread_url },
    })),
    next_cursor,
  };
}
