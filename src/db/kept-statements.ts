import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import { Tally } from '../metrics/tally.ts';

/** Past this many texts, new ones run unprepared (each connection keeps a plan for every name). */
const MOST_KEPT = 1_000;

const names = new Map<string, string>();
let named = 0;

/**
 * Marks a SQL text to be kept prepared on PostgreSQL connections (`planOnce` in prepared.ts). Kysely
 * sends every statement unnamed, and PostgreSQL then plans it on every run: for the list's reply
 * query that was most of its cost (20 branches: planned in 1 ms, run in 0.25 ms; a round trip of
 * 2.1 ms unnamed against 0.5 ms prepared; 50 branches: 7.1 ms against 1.3 ms).
 */
export function keepPrepared(sql: string): void {
  if (names.has(sql) || names.size >= MOST_KEPT) return;
  names.set(sql, `parley_${++named}`);
}

/** PostgreSQL's answer when a change of a table changes what a kept statement returns. */
const PLAN_RESULT_CHANGED = '0A000';

async function run<R>(client: pg.PoolClient, sql: string, parameters: ReadonlyArray<unknown>, errors: Tally): Promise<PostgresQueryResult<R>> {
  try {
    return await runKept<R>(client, sql, parameters);
  } catch (error) {
    errors.add(String((error as { code?: unknown }).code ?? 'unknown'));
    throw error;
  }
}

async function runKept<R>(client: pg.PoolClient, sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
  const name = names.get(sql);
  const values = [...parameters];
  if (name === undefined) return client.query(sql, values) as unknown as PostgresQueryResult<R>;
  try {
    return (await client.query({ name, text: sql, values })) as unknown as PostgresQueryResult<R>;
  } catch (error) {
    if ((error as { code?: string }).code !== PLAN_RESULT_CHANGED) throw error;
    // That connection's plan is stale for good: the text runs unprepared from now on, everywhere.
    // (Inside a transaction the error has already aborted it: that one request fails.)
    names.delete(sql);
    return client.query(sql, values) as unknown as PostgresQueryResult<R>;
  }
}

/**
 * The pool as Kysely sees it, its clients running kept texts as named (prepared) statements;
 * statements that fail (and connections that cannot be made) are counted in `errors` by SQLSTATE.
 */
export function keepingStatements(pool: pg.Pool, errors: Tally): PostgresPool {
  return {
    connect: async () => {
      const client = await pool.connect().catch((error: unknown) => {
        errors.add('connect');
        throw error;
      });
      return {
        query: ((sql: unknown, parameters?: ReadonlyArray<unknown>) =>
          typeof sql === 'string' ? run(client, sql, parameters ?? [], errors) : client.query(sql as never)) as PostgresPoolClient['query'],
        release: () => client.release(),
      };
    },
    end: () => pool.end(),
  };
}
