import SQLite from 'better-sqlite3';
import { PostgresAdapter, sql, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool, type Transaction } from 'kysely';
import pg from 'pg';
import { preparedQuery } from './prepared.ts';
import type { Database } from './schema.ts';

/**
 * The few places where SQLite and PostgreSQL differ. Everything else in Parley is portable SQL.
 */
export type DialectName = 'sqlite' | 'postgres';

export function dialectOf(databaseUrl: string): DialectName {
  return databaseUrl.startsWith('postgres') ? 'postgres' : 'sqlite';
}

/** The dialect a Kysely instance (or transaction) speaks, for SQL built once per dialect. */
export function dialectOfDb(db: Kysely<any>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * The recursive step of a walk up a comment's ancestors: the parent of each row of the CTE `chain`,
 * as `comments c`, with its `parent_id` and `columns`. On PostgreSQL each parent is looked up by
 * primary key behind a fence (`offset 0`), whatever the table's size when the plan was made: a plan
 * kept on a connection (planOnce) and made while the table held a few hundred rows joins it by a
 * hash over every row, which at 100,000 comments took 18 ms a vote. SQLite looks each up by key.
 */
export function parentsInChain(dialect: DialectName, columns: RawBuilder<unknown>): RawBuilder<unknown> {
  return dialect === 'postgres'
    ? sql`select p.* from chain cross join lateral (select c.parent_id, ${columns} from comments c where c.id = chain.parent_id offset 0) as p`
    : sql`select c.parent_id, ${columns} from comments c join chain on c.id = chain.parent_id`;
}

/**
 * Row lock for read-modify-write sequences. SQLite has one writer at a time and no FOR UPDATE, so
 * the transaction itself serialises; PostgreSQL needs the explicit lock.
 */
export function forUpdate<DB, TB extends keyof DB, O>(
  dialect: DialectName,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return dialect === 'postgres' ? query.forUpdate() : query;
}

/**
 * Locks one row (by its `id`) until commit, so that the statements after it see everything
 * committed before: PostgreSQL's READ COMMITTED reads a fresh snapshot per statement, but a lock
 * taken inside a larger read would leave that read's snapshot from before the wait. SQLite has one
 * writer at a time, so there is nothing to wait for.
 */
export async function lockRow<DB>(dialect: DialectName, trx: Transaction<DB>, table: string, id: string): Promise<void> {
  if (dialect === 'postgres') await rowLock(trx as unknown as Kysely<Database>, table, id);
}

/** Planned once per connection: a lookup by primary key, on every flag and change of an account's team. */
const rowLock = preparedQuery((db, table: string, id: string) => sql`select 1 from ${sql.table(table)} where id = ${id} for update`.compile(db), { planOnce: true });

/**
 * Rows a worker claims for itself. PostgreSQL skips rows another instance holds locked, so
 * instances never wait on each other; SQLite has one writer at a time, so the claiming
 * `UPDATE ... WHERE <still claimable> RETURNING` around this subquery is atomic there as it is.
 */
export function skipLocked<DB, TB extends keyof DB, O>(
  dialect: DialectName,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return dialect === 'postgres' ? query.forUpdate().skipLocked() : query;
}

/** SQL for the ISO time (as `toISOString` writes it) one millisecond after the ISO time `stamp`. */
export function millisecondAfter(dialect: DialectName, stamp: RawBuilder<unknown>): RawBuilder<string> {
  return dialect === 'postgres'
    ? sql<string>`to_char((cast(${stamp} as timestamptz) + interval '1 millisecond') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
    : sql<string>`strftime('%Y-%m-%dT%H:%M:%fZ', ${stamp}, '+0.001 seconds')`;
}

/**
 * SQL for a JSON object of counts by key (a comment's reaction_counts) with one taken from the key
 * `previous` and one added to `next` (either may be null), written as JSON.stringify writes it: keys
 * in order, none at zero; '{}' for none.
 */
export function movedJsonCounts(dialect: DialectName, counts: RawBuilder<unknown>, previous: unknown, next: unknown): RawBuilder<string> {
  const [entries, quoted, joined] =
    dialect === 'postgres'
      ? [sql`select key as k, cast(value as integer) as n from json_each_text(cast(${counts} as json))`, sql`cast(to_json(k) as text)`, (item: RawBuilder<unknown>) => sql`string_agg(${item}, ',' order by k)`]
      : [sql`select key as k, value as n from json_each(${counts})`, sql`json_quote(k)`, (item: RawBuilder<unknown>) => sql`group_concat(${item}, ',' order by k)`];
  return sql<string>`coalesce((select '{' || ${joined(sql`${quoted} || ':' || n`)} || '}'
    from (select k, sum(n) as n from (
      ${entries}
      union all select cast(${previous} as text), -1 where cast(${previous} as text) is not null
      union all select cast(${next} as text), 1 where cast(${next} as text) is not null) as moves
    group by k) as moved
    where n > 0), '{}')`;
}

/** PostgreSQL returns count(*) as a bigint string, SQLite as a number. */
export function toCount(value: string | number | bigint | null | undefined): number {
  return Number(value ?? 0);
}

/**
 * Serialises the transactions that touch one author's standing on a site (posting, shadow-banning,
 * lifting a ban) until commit. Under PostgreSQL's READ COMMITTED a comment posted while a shadow ban
 * commits would otherwise miss both the ban check and the ban's update, and stay public. SQLite
 * already runs one writer at a time.
 */
export async function lockAuthor<DB>(dialect: DialectName, trx: Transaction<DB>, siteId: string, authorRef: string): Promise<void> {
  if (dialect === 'postgres') await sql`select ${authorLock(authorLockKey(siteId, authorRef))}`.execute(trx);
}

/** The key of lockAuthor's lock. */
export const authorLockKey = (siteId: string, authorRef: string): string => `${siteId}:${authorRef}`;

/**
 * lockAuthor's lock as a PostgreSQL expression, for a statement that takes it beside a read of its
 * own (a new comment's site). It is taken as the statement's row is output, after its snapshot: only
 * the statements after it read the author's standing under the lock.
 */
export function authorLock(key: string): RawBuilder<unknown> {
  return sql`pg_advisory_xact_lock(hashtextextended(${key}, 0))`;
}

/**
 * Runs the migrator on one connection that other processes wait for, so two instances starting at
 * once do not both migrate.
 * - PostgreSQL: Kysely's migrator takes a session advisory lock and applies the pending migrations in
 *   one transaction. The statement time-out is lifted for the session: the lock wait and an index
 *   build on a large table may take longer than any request should.
 * - SQLite: Kysely takes no lock (it assumes one process), so the whole run happens inside
 *   BEGIN IMMEDIATE: another process waits for the write lock (for up to 5 s, between turns of its
 *   event loop: its /readyz keeps answering), then finds nothing to do.
 */
export async function inMigrationSession<T>(
  kysely: Kysely<Database>,
  dialect: DialectName,
  work: (session: Kysely<Database>) => Promise<T>,
): Promise<T> {
  return kysely.connection().execute(async (session) => {
    if (dialect === 'postgres') {
      await sql`set statement_timeout = 0`.execute(session);
      try {
        return await work(session);
      } finally {
        await sql`reset statement_timeout`.execute(session);
      }
    }
    return immediateTransaction(session, () => work(session));
  });
}

/**
 * SQLite: a transaction that holds the database's one write lock from its start. A deferred one
 * would read first and then could not upgrade once another process had written (SQLITE_BUSY).
 */
async function immediateTransaction<T>(session: Kysely<Database>, work: () => Promise<T>): Promise<T> {
  await sql`begin immediate`.execute(session);
  try {
    const result = await work();
    await sql`commit`.execute(session);
    return result;
  } catch (error) {
    await sql`rollback`.execute(session);
    throw error;
  }
}

/**
 * A transaction that no other process's exclusive transaction of the same `name` runs beside: for
 * a check-then-write that must happen once however many instances start together (the demo site).
 * PostgreSQL takes a transaction-scoped advisory lock on the name; SQLite takes its write lock.
 * `work` must not open a transaction of its own.
 */
export function exclusiveTransaction<T>(
  kysely: Kysely<Database>,
  dialect: DialectName,
  name: string,
  work: (trx: Kysely<Database>) => Promise<T>,
): Promise<T> {
  if (dialect === 'postgres') {
    return kysely.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtextextended(${name}, 0))`.execute(trx);
      return work(trx);
    });
  }
  return kysely.connection().execute((session) => immediateTransaction(session, () => work(session)));
}

/**
 * The database gave up on a statement because it was busy, not because the request was wrong:
 * PostgreSQL's statement_timeout (query_canceled), or a SQLite write that did not get the write
 * lock (SQLITE_BUSY and its extended codes: after busy_timeout, or at once when a transaction that
 * has read cannot upgrade). Worth answering 503 with a Retry-After rather than 500.
 */
export function isDatabaseBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof pg.DatabaseError) return code === '57014';
  return error instanceof SQLite.SqliteError && typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** A row trigger whose body is one statement: `when` is what follows the trigger's name. */
export interface Trigger {
  name: string;
  when: string;
  body: RawBuilder<unknown>;
}

/** SQLite writes a trigger's body inline; PostgreSQL calls a function. */
export async function createTriggers(db: Kysely<unknown>, triggers: Trigger[]): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const { name, when, body } of triggers) {
    if (postgres) {
      await sql`create function ${sql.raw(name)}() returns trigger language plpgsql as $$ begin ${body}; return null; end $$`.execute(db);
      await sql`create trigger ${sql.raw(name)} ${sql.raw(when)} execute function ${sql.raw(name)}()`.execute(db);
    } else {
      await sql`create trigger ${sql.raw(name)} ${sql.raw(when)} begin ${body}; end`.execute(db);
    }
  }
}

/** Drops triggers of `table` made by createTriggers (and, on PostgreSQL, their functions). */
export async function dropTriggers(db: Kysely<unknown>, table: string, names: string[]): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const name of names) {
    if (postgres) {
      await sql`drop trigger ${sql.raw(name)} on ${sql.raw(table)}`.execute(db);
      await sql`drop function ${sql.raw(name)}()`.execute(db);
    } else {
      await sql`drop trigger ${sql.raw(name)}`.execute(db);
    }
  }
}

/** The words of a search: runs of letters and digits, as both engines' tokenizers split text. */
export function searchTerms(query: string): string[] {
  return [...new Set(query.normalize('NFC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
}

/**
 * PostgreSQL: the tsvector of a comment's content and author name that its search index
 * (migration 0013) holds. A query must write the same expression to use the index; `alias` names
 * the comments table (null inside the index's definition).
 */
export function searchedTextPostgres(alias: string | null): RawBuilder<unknown> {
  const column = (name: string) => (alias === null ? sql.ref(name) : sql.ref(`${alias}.${name}`));
  return sql`to_tsvector('simple', coalesce(${column('content')}, '') || ' ' || ${column('author_name')})`;
}

/**
 * PostgreSQL: SQL for "comment `alias` contains every one of `words` (the terms, space-separated)",
 * on the GIN index's tsvector; its planner chooses between that index and the page order's by its
 * statistics. SQLite searches through its FTS5 index in page order instead (walkSearch in
 * search-index.ts).
 */
export function matchesSearchPostgres(alias: string, words: unknown): RawBuilder<SqlBool> {
  return sql<SqlBool>`${searchedTextPostgres(alias)} @@ plainto_tsquery('simple', ${words})`;
}

/**
 * SQL: lower(`name`) from `low` (included) to `high` (excluded), both lowered the same way: a range
 * of an index on lower(name). PostgreSQL compares it byte by byte (collation "C", as its index is
 * made: migration 0036), so that the range is that of a prefix whatever the database's collation;
 * SQLite compares bytes already.
 */
export function lowerNameWithin(dialect: DialectName, name: RawBuilder<unknown>, low: unknown, high: unknown): RawBuilder<SqlBool> {
  const folded = dialect === 'postgres' ? sql`lower(${name}) collate "C"` : sql`lower(${name})`;
  return sql<SqlBool>`${folded} >= lower(${low}) and ${folded} < lower(${high})`;
}

/**
 * Brings the query planner's statistics up to date after a bulk write. Without them SQLite plans
 * the walk below a deleted top-level comment (comments/repository.ts, `listable`) by building a
 * throwaway index over every comment of the database, each time: 275 ms a statement at 100,000
 * comments, 1 ms with statistics. SQLite: `PRAGMA optimize` analyses (sampled) the tables that need it;
 * PostgreSQL: ANALYZE of the tables named, as autovacuum would do later.
 */
export async function refreshStatistics(kysely: Kysely<Database>, dialect: DialectName, tables: (keyof Database)[]): Promise<void> {
  if (dialect === 'postgres') await sql`analyze ${sql.join(tables.map((table) => sql.table(table)))}`.execute(kysely);
  else await sql`pragma optimize = 0x10002`.execute(kysely);
}
