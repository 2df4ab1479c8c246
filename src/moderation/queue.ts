import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Caller } from '../auth/caller.ts';
import { threadKey } from '../comments/thread-url.ts';
import { toView, type ViewRow } from '../comments/view.ts';
import type { Db } from '../db/connect.ts';
import { matchesSearchPostgres, searchTerms } from '../db/dialect.ts';
import { walkSearch } from '../db/search-index.ts';
import { invalid } from '../errors.ts';
import { afterKey, decodeCursor, encodeCursor, pageOf, type KeyValue } from '../http/cursor.ts';
import { managedSite, sitesManagedBy } from '../sites/repository.ts';
import { authorsOf, excerpt, flagReasonsOf } from './queue-details.ts';

export const QUEUE_STATUSES = ['all', 'pending', 'flagged', 'spam', 'removed', 'published', 'deleted'] as const;
export type QueueStatus = (typeof QUEUE_STATUSES)[number];
export const QUEUE_SORTS = ['newest', 'oldest', 'most_flagged'] as const;
export type QueueSort = (typeof QUEUE_SORTS)[number];

export interface QueueQuery {
  site_id?: string;
  status?: QueueStatus;
  q?: string;
  author?: string;
  thread_url?: string;
  since?: string;
  until?: string;
  sort?: QueueSort;
  cursor?: string;
  limit?: number;
}

const ORDERS: Record<QueueSort, { columns: string[]; types: Array<'string' | 'number'>; direction: 'asc' | 'desc' }> = {
  newest: { columns: ['created_at', 'id'], types: ['string', 'string'], direction: 'desc' },
  oldest: { columns: ['created_at', 'id'], types: ['string', 'string'], direction: 'asc' },
  most_flagged: { columns: ['flag_count', 'created_at', 'id'], types: ['number', 'string', 'string'], direction: 'desc' },
};

/**
 * What each status means in SQL. Statuses are literals, not parameters, and "not published",
 * "deleted" and "flagged" repeat the conditions of their partial indexes (migration 0013), so both
 * databases' planners match them to those small indexes.
 */
const STATUS_FILTERS: Record<QueueStatus, RawBuilder<SqlBool> | null> = {
  all: null,
  published: sql`c.status = 'published' and c.is_deleted = 0`,
  pending: sql`c.status <> 'published' and c.status = 'pending' and c.is_deleted = 0`,
  removed: sql`c.status <> 'published' and c.status = 'removed' and c.is_deleted = 0`,
  spam: sql`c.status <> 'published' and c.status = 'spam' and c.is_deleted = 0`,
  deleted: sql`c.is_deleted = 1`,
  // Flags waiting for a moderator: on comments still shown (removing one answers its flags).
  flagged: sql`c.flag_count > 0 and c.status = 'published' and c.is_deleted = 0`,
};

/** Where a page's comments are looked for: each site the caller moderates, or the thread of a URL on each. */
interface Scopes {
  column: 'c.site_id' | 'c.thread_id';
  ids: string[];
}

async function scopesOf(db: Db, caller: Caller, query: QueueQuery): Promise<Scopes> {
  const sites = query.site_id !== undefined ? [await managedSite(db.kysely, caller, query.site_id, 'moderate')] : await sitesManagedBy(db.kysely, caller, 'moderate');
  if (query.thread_url === undefined) return { column: 'c.site_id', ids: sites.map((site) => site.id) };
  const url = threadKey(query.thread_url, 'querystring/thread_url').href;
  if (sites.length === 0) return { column: 'c.thread_id', ids: [] };
  const threads = await db.kysely.selectFrom('threads').select('id').where('url_key', '=', url).where('site_id', 'in', sites.map((site) => site.id)).execute();
  return { column: 'c.thread_id', ids: threads.map((thread) => thread.id) };
}

function timeBound(value: string, path: string): string {
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) throw invalid(path, 'must be an ISO 8601 date-time');
  return time.toISOString();
}

/** The query's filters as SQL over comments `c` (search and scope apart). */
function filtersOf(query: QueueQuery): Array<RawBuilder<SqlBool>> {
  const filters: Array<RawBuilder<SqlBool>> = [];
  const status = STATUS_FILTERS[query.status ?? 'all'];
  if (status) filters.push(status);
  if (query.sort === 'most_flagged') filters.push(sql<SqlBool>`c.flag_count > 0`);
  if (query.author !== undefined) filters.push(sql<SqlBool>`c.author_ref = ${query.author}`);
  if (query.since !== undefined) filters.push(sql<SqlBool>`c.created_at >= ${timeBound(query.since, 'querystring/since')}`);
  if (query.until !== undefined) filters.push(sql<SqlBool>`c.created_at < ${timeBound(query.until, 'querystring/until')}`);
  return filters;
}

/** One scope's candidates for the page, in page order along an index: ids and sort keys only. */
function branch(db: Db, column: Scopes['column'], id: string, filters: Array<RawBuilder<SqlBool>>, sort: QueueSort, after: KeyValue[] | null, limit: number) {
  const { columns, direction } = ORDERS[sort];
  let select = db.kysely.selectFrom('comments as c').select(['c.id', 'c.created_at', 'c.flag_count']).where(column, '=', id);
  for (const filter of filters) select = select.where(filter);
  if (after) select = select.where(afterKey(columns.map((name) => `c.${name}`), after, direction));
  for (const name of columns) select = select.orderBy(`c.${name}` as 'c.id', direction);
  return select.limit(limit + 1);
}

type Candidate = { id: string; created_at: string; flag_count: number };

/**
 * Each site (or thread) read as its own LIMITed branch along an index, the branches merged: a page
 * never sorts a site's comments.
 */
async function candidates(db: Db, scopes: Scopes, filters: Array<RawBuilder<SqlBool>>, sort: QueueSort, after: KeyValue[] | null, limit: number): Promise<Candidate[]> {
  const branches = scopes.ids.map((id) => branch(db, scopes.column, id, filters, sort, after, limit));
  if (branches.length === 1) return branches[0].execute();
  const { columns, direction } = ORDERS[sort];
  const inOrder = sql.join(columns.map((column) => sql`${sql.ref(column)} ${sql.raw(direction)}`));
  const merged = sql<Candidate>`select * from (${sql.join(
    branches.map((one, i) => sql`select * from (${one}) as ${sql.raw(`b${i}`)}`),
    sql` union all `,
  )}) as merged order by ${inOrder} limit ${sql.lit(limit + 1)}`;
  return (await merged.execute(db.kysely)).rows;
}

/**
 * SQLite: a search page read from the FTS5 index in time order (walkSearch); its cursor is the
 * index's key of the last comment shown, or of where the read stopped (a page may then be short).
 */
async function sqliteSearchPage(db: Db, scopes: Scopes, filters: Array<RawBuilder<SqlBool>>, terms: string[], query: QueueQuery, order: string, limit: number) {
  const after = query.cursor === undefined ? null : Number(decodeCursor(query.cursor, order, ['number'])[0]);
  const inScope = sql<SqlBool>`${sql.ref(scopes.column)} in (${sql.join(scopes.ids)})`;
  const { found, stoppedAt } = await walkSearch(db.kysely, terms, sql.join([inScope, ...filters], sql` and `), query.sort === 'oldest' ? 'asc' : 'desc', after, limit);
  const items = found.slice(0, limit);
  const next = found.length > limit ? items[items.length - 1].key : stoppedAt;
  return { comments: await queueItems(db, items.map((item) => item.id)), next_cursor: next === null ? null : encodeCursor(order, [next]) };
}

/**
 * The moderation queue: comments of every site the caller moderates (or one), filtered, in a stable
 * order, a cursor page at a time.
 */
export async function moderationQueue(db: Db, caller: Caller, query: QueueQuery) {
  const sort = query.sort ?? 'newest';
  const limit = query.limit ?? 20;
  const terms = query.q === undefined ? null : searchTerms(query.q);
  if (terms?.length === 0) throw invalid('querystring/q', 'must contain a word (letters or digits)');
  if (terms && sort === 'most_flagged') throw invalid('querystring/sort', 'a search lists comments by time: newest or oldest');
  // A search's pages and the plain list's are different walks: a cursor belongs to one of them.
  const order = `queue:${sort}${terms ? ':search' : ''}`;
  const filters = filtersOf(query);
  const scopes = await scopesOf(db, caller, query);
  if (terms && db.dialect === 'sqlite') {
    if (scopes.ids.length === 0) return { comments: [], next_cursor: null };
    return sqliteSearchPage(db, scopes, filters, terms, query, order, limit);
  }
  const after = query.cursor === undefined ? null : decodeCursor(query.cursor, order, ORDERS[sort].types);
  if (terms) filters.push(matchesSearchPostgres('c', terms));
  if (scopes.ids.length === 0) return { comments: [], next_cursor: null };
  const rows = await candidates(db, scopes, filters, sort, after, limit);
  const { items, next_cursor } = pageOf(rows, limit, (row) => (sort === 'most_flagged' ? [Number(row.flag_count), row.created_at, row.id] : [row.created_at, row.id]), order);
  return { comments: await queueItems(db, items.map((item) => item.id)), next_cursor };
}

/**
 * The queue's items: each comment with what a moderator decides by (its thread, its parent's
 * excerpt, its flags and reasons, its author's record), in the order of `ids`.
 */
export async function queueItems(db: Db, ids: string[]) {
  if (ids.length === 0) return [];
  const rows = await db.kysely
    .selectFrom('comments as c')
    .innerJoin('threads as t', 't.id', 'c.thread_id')
    .leftJoin('comments as p', 'p.id', 'c.parent_id')
    .selectAll('c')
    .select(['t.url_key as thread_url', 't.title as thread_title', 't.closed_at as thread_closed_at'])
    .select(['p.author_name as parent_author_name', 'p.content as parent_content', 'p.is_deleted as parent_is_deleted'])
    .where('c.id', 'in', ids)
    .execute();
  const [reasons, authors] = await Promise.all([flagReasonsOf(db.kysely, ids), authorsOf(db.kysely, rows)]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    if (!row) return [];
    const { replies, has_more_replies, user_vote, user_reaction, user_is_author, ...comment } = toView(row as ViewRow, row.thread_url);
    return [
      {
        ...comment,
        thread: { id: row.thread_id, title: row.thread_title, closed: row.thread_closed_at !== null },
        parent:
          row.parent_id === null
            ? null
            : { id: row.parent_id, author_name: row.parent_author_name ?? '', excerpt: row.parent_is_deleted ? null : excerpt(row.parent_content) },
        flags: { count: Number(row.flag_count), reasons: reasons.get(id) ?? [] },
        author: authors(row),
      },
    ];
  });
}
