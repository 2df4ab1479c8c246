import { sql, type Kysely, type SelectQueryBuilder, type Transaction } from 'kysely';
import type { Database } from './schema.ts';

/**
 * The few places where SQLite and PostgreSQL differ. Everything else in Parley is portable SQL.
 */
export type DialectName = 'sqlite' | 'postgres';

export function dialectOf(databaseUrl: string): DialectName {
  return databaseUrl.startsWith('postgres') ? 'postgres' : 'sqlite';
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
  if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtextextended(${`${siteId}:${authorRef}`}, 0))`.execute(trx);
}

/**
 * Runs the migrator on one connection that other processes wait for, so two instances starting at
 * once do not both migrate.
 * - PostgreSQL: Kysely's migrator takes a session advisory lock and applies the pending migrations in
 *   one transaction. The statement time-out is lifted for the session: the lock wait and an index
 *   build on a large table may take longer than any request should.
 * - SQLite: Kysely takes no lock (it assumes one process), so the whole run happens inside
 *   BEGIN IMMEDIATE: another process waits for the write lock (busy_timeout), then finds nothing to do.
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
    await sql`begin immediate`.execute(session);
    try {
      const result = await work(session);
      await sql`commit`.execute(session);
      return result;
    } catch (error) {
      await sql`rollback`.execute(session);
      throw error;
    }
  });
}
