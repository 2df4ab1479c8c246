import { sql, type CompiledQuery, type RawBuilder, type SqlBool } from 'kysely';
import type { Caller } from '../auth/caller.ts';
import { threadKey } from '../comments/thread-url.ts';
import { spamReasonsOf, toView, VIEW_SELECTION } from '../comments/view.ts';
import { preparedQuery } from '../db/prepared.ts';
import type { Db } from '../db/connect.ts';
import { dialectOfDb, lowerNameWithin, matchesSearchPostgres, searchTerms, type DialectName } from '../db/dialect.ts';
import { walkSearch } from '../db/search-index.ts';
import { invalid } from '../errors.ts';
import { afterKey, decodeCursor, encodeCursor, pageOf, type KeyType, type KeyValue } from '../http/cursor.ts';
import { managedSite, sitesManagedBy } from '../sites/repository.ts';
import { authorKind, flagReasonsOf, NO_STANDING, standingsOf } from './queue-details.ts';
import { excerpt } from '../comments/excerpt.ts';
import { threadsNamed } from './thread-search.ts';

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
  thread?: string;
  since?: string;
  until?: string;
  sort?: QueueSort;
  cursor?: string;
  limit?: number;
}

const ORDERS: Record<QueueSort, { columns: string[]; types: KeyType[]; direction: 'asc' | 'desc' }> = {
  newest: { columns: ['created_at', 'id'], types: ['string', 'string'], direction: 'desc' },
  oldest: { columns: ['created_at', 'id'], types: ['string', 'string'], direction: 'asc' },
  most_flagged: { columns: ['flag_count', 'created_at', 'id'], types: ['count', 'string', 'string'], direction: 'desc' },
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
  const siteIds = sites.map((site) => site.id);
  if (query.thread_url === undefined && query.thread === undefined) return { column: 'c.site_id', ids: siteIds };
  const url = query.thread_url === undefined ? null : threadKey(query.thread_url, 'querystring/thread_url').href;
  const named = query.thread === undefined ? null : await threadsNamed(db.kysely, siteIds, query.thread);
  if (url === null || siteIds.length === 0) return { column: 'c.thread_id', ids: named ?? [] };
  const threads = await db.kysely.selectFrom('threads').select('id').where('url_key', '=', url).where('site_id', 'in', siteIds).execute();
  const ids = threads.map((thread) => thread.id);
  return { column: 'c.thread_id', ids: named === null ? ids : ids.filter((id) => named.includes(id)) };
}

/** An author's id (usr_, key_): anything else is the start of a display name. */
const AUTHOR_ID = /^(usr|key)_[0-9A-Za-z-]+$/;

/**
 * A display name's start, case-insensitive, as the range of lower(author_name) it spans (an
 * index range on both databases: migration 0036); the bound past every name that starts with it
 * ends in the last code point. SQLite's lower() folds ASCII letters only.
 */
const nameRange = (prefix: string) => [prefix, `${prefix}\u{10FFFF}`];

export function timeBound(value: string, path: string): string {
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) throw invalid(path, 'must be an ISO 8601 date-time');
  return time.toISOString();
}

/** What a page's statement is made of; its values come apart (valuesOf), so it is compiled once per shape. */
interface PageShape {
  column: Scopes['column'];
  scopes: number;
  status: QueueStatus;
  sort: QueueSort;
  author: 'id' | 'name' | null;
  since: boolean;
  until: boolean;
  after: boolean;
  search: boolean;
  limit: number;
}

function shapeOf(query: QueueQuery, scopes: Scopes, after: KeyValue[] | null, search: boolean, limit: number): PageShape {
  return {
    column: scopes.column,
    scopes: scopes.ids.length,
    status: query.status ?? 'all',
    sort: query.sort ?? 'newest',
    author: query.author === undefined ? null : AUTHOR_ID.test(query.author) ? 'id' : 'name',
    since: query.since !== undefined,
    until: query.until !== undefined,
    after: after !== null,
    search,
    limit,
  };
}

/** The values of a page's statement, in the order pageStatement and filtersOf take them. */
function valuesOf(query: QueueQuery, scopes: Scopes, after: KeyValue[] | null, terms: string[] | null): unknown[] {
  return [
    ...scopes.ids,
    ...(query.author === undefined ? [] : AUTHOR_ID.test(query.author) ? [query.author] : nameRange(query.author)),
    ...(query.since !== undefined ? [timeBound(query.since, 'querystring/since')] : []),
    ...(query.until !== undefined ? [timeBound(query.until, 'querystring/until')] : []),
    ...(after ?? []),
    ...(terms ? [terms.join(' ')] : []),
  ];
}

/** The shape's filters as SQL over comments `c` (scope, order and search apart), taking their values in order. */
function filtersOf(shape: PageShape, take: () => unknown, dialect: DialectName): Array<RawBuilder<SqlBool>> {
  const filters: Array<RawBuilder<SqlBool>> = [];
  const status = STATUS_FILTERS[shape.status];
  if (status) filters.push(status);
  if (shape.sort === 'most_flagged') filters.push(sql<SqlBool>`c.flag_count > 0`);
  if (shape.author === 'id') filters.push(sql<SqlBool>`c.author_ref = ${take()}`);
  if (shape.author === 'name') filters.push(lowerNameWithin(dialect, sql.ref('c.author_name'), take(), take()));
  if (shape.since) filters.push(sql<SqlBool>`c.created_at >= ${take()}`);
  if (shape.until) filters.push(sql<SqlBool>`c.created_at < ${take()}`);
  return filters;
}

type Candidate = { id: string; created_at: string; flag_count?: number };

/**
 * A page's candidates, ids and sort keys only: each site (or thread) read as its own LIMITed
 * branch along an index, the branches merged, so a page never sorts a site's comments. Compiled
 * once per shape (see db/prepared.ts).
 */
const pageStatement = preparedQuery((db, shape: PageShape, ...values: unknown[]) => {
  const scopeIds = values.slice(0, shape.scopes);
  let at = shape.scopes;
  const take = () => values[at++];
  const filters = filtersOf(shape, take, dialectOfDb(db));
  const { columns, direction } = ORDERS[shape.sort];
  const after = shape.after ? columns.map(() => take() as KeyValue) : null;
  if (shape.search) filters.push(matchesSearchPostgres('c', take()));
  const branch = (id: unknown) => {
    // The sort key the cursor needs; flag_count only when it is one (it is in no index by time).
    let select = db
      .selectFrom('comments as c')
      .select(shape.sort === 'most_flagged' ? ['c.id', 'c.created_at', 'c.flag_count'] : ['c.id', 'c.created_at'])
      .where(shape.column, '=', id as string);
    for (const filter of filters) select = select.where(filter);
    if (after) select = select.where(afterKey(columns.map((name) => `c.${name}`), after, direction));
    for (const name of columns) select = select.orderBy(`c.${name}` as 'c.id', direction);
    return select.limit(sql.lit(shape.limit + 1));
  };
  if (shape.scopes === 1) return branch(scopeIds[0]).compile() as CompiledQuery<Candidate>;
  const inOrder = sql.join(columns.map((column) => sql`${sql.ref(column)} ${sql.raw(direction)}`));
  return sql<Candidate>`select * from (${sql.join(
    scopeIds.map((id, i) => sql`select * from (${branch(id)}) as ${sql.raw(`b${i}`)}`),
    sql` union all `,
  )}) as merged order by ${inOrder} limit ${sql.lit(shape.limit + 1)}`.compile(db);
});

/**
 * SQLite: a search page read from the FTS5 index in time order (walkSearch); its cursor is the
 * index's key of the last comment shown, or of where the read stopped (a page may then be short).
 */
async function sqliteSearchPage(db: Db, scopes: Scopes, terms: string[], query: QueueQuery, order: string, limit: number) {
  const after = query.cursor === undefined ? null : Number(decodeCursor(query.cursor, order, ['integer'])[0]);
  const values = valuesOf(query, scopes, null, null).slice(scopes.ids.length);
  const filters = filtersOf(shapeOf(query, scopes, null, false, limit), () => values.shift(), 'sqlite');
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
  const scopes = await scopesOf(db, caller, query);
  if (terms && db.dialect === 'sqlite') {
    if (scopes.ids.length === 0) return { comments: [], next_cursor: null };
    return sqliteSearchPage(db, scopes, terms, query, order, limit);
  }
  const after = query.cursor === undefined ? null : decodeCursor(query.cursor, order, ORDERS[sort].types);
  const values = valuesOf(query, scopes, after, terms);
  if (scopes.ids.length === 0) return { comments: [], next_cursor: null };
  const rows = await pageStatement(db.kysely, shapeOf(query, scopes, after, terms !== null, limit), ...values);
  const { items, next_cursor } = pageOf(rows, limit, (row) => (sort === 'most_flagged' ? [Number(row.flag_count), row.created_at, row.id] : [row.created_at, row.id]), order);
  return { comments: await queueItems(db, items.map((item) => item.id)), next_cursor };
}

/** A comment with its thread, its parent and its author's record: one statement for a page (compiled once per size). */
const itemRows = preparedQuery((db, _count: number, ...ids: string[]) =>
  db
    .selectFrom('comments as c')
    .innerJoin('comment_counts as n', 'n.comment_id', 'c.id')
    .innerJoin('threads as t', 't.id', 'c.thread_id')
    .leftJoin('comments as p', 'p.id', 'c.parent_id')
    .leftJoin('author_counts as a', (join) => join.onRef('a.site_id', '=', 'c.site_id').onRef('a.author_ref', '=', 'c.author_ref'))
    .select(VIEW_SELECTION)
    .select(['c.thread_id', 'c.flag_count', 'c.spam_reasons', 't.url_key as thread_url', 't.title as thread_title', 't.closed_at as thread_closed_at'])
    .select(['p.author_name as parent_author_name', 'p.content as parent_content', 'p.is_deleted as parent_is_deleted'])
    .select(['a.published', 'a.pending', 'a.removed', 'a.spam'])
    .where('c.id', 'in', ids)
    .compile(),
);

/**
 * The queue's items: each comment with what a moderator decides by (its thread, its parent's
 * excerpt, its flags and reasons, its author's comments by status and ban), in the order of `ids`.
 */
export async function queueItems(db: Db, ids: string[]) {
  if (ids.length === 0) return [];
  const rows = await itemRows(db.kysely, ids.length, ...ids);
  const flagged = rows.filter((row) => Number(row.flag_count) > 0).map((row) => row.id);
  const reasons = flagged.length > 0 ? await flagReasonsOf(db.kysely, flagged) : new Map();
  const standings = await standingsOf(db.kysely, rows);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    if (!row) return [];
    // A comment as lists show it; the response schema leaves out what an item has no use for
    // (replies, the reader's marks).
    const item = Object.assign(toView(row, row.thread_url), {
      thread: { id: row.thread_id, title: row.thread_title, closed: row.thread_closed_at !== null },
      parent:
        row.parent_id === null
          ? null
          : { id: row.parent_id, author_name: row.parent_author_name ?? '', excerpt: row.parent_is_deleted ? null : excerpt(row.parent_content) },
      flags: { count: Number(row.flag_count), reasons: reasons.get(id) ?? [] },
      spam_reasons: spamReasonsOf(row.spam_reasons),
      author: {
        id: row.author_ref,
        kind: authorKind(row.author_ref),
        comments:
          row.published === null
            ? null
            : { published: Number(row.published), pending: Number(row.pending), removed: Number(row.removed), spam: Number(row.spam) },
        ...(standings.get(`${row.site_id} ${row.author_ref}`) ?? NO_STANDING),
      },
    });
    return [item];
  });
}
