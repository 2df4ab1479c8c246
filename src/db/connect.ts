import { mkdirSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type KyselyConfig } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.ts';
import { dialectOf, type DialectName } from './dialect.ts';
import type { Database } from './schema.ts';

export interface Db {
  kysely: Kysely<Database>;
  dialect: DialectName;
  close(): Promise<void>;
}

type DbConfig = Pick<Config, 'databaseUrl' | 'databasePoolSize' | 'databaseStatementTimeoutMs' | 'databaseSsl'>;

export function sqlitePath(databaseUrl: string): string {
  const path = databaseUrl.replace(/^(sqlite|file):(\/\/)?/, '');
  return path === '' ? ':memory:' : path;
}

function openSqlite(databaseUrl: string): SQLite.Database {
  const path = sqlitePath(databaseUrl);
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  // WAL lets readers run beside the writer. With synchronous=NORMAL a commit is in the WAL (the OS's
  // page cache) before it is acknowledged: it survives a killed process, and only a power cut can
  // roll back the last commits, never corrupt the file. FULL would fsync every commit (~10x slower).
  // busy_timeout lets the CLI write while a server runs.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  return sqlite;
}

/**
 * A postgres:// URL without a user name means "the operating-system user", as it does for psql;
 * node-postgres would instead read $USER, which is unset under systemd and in CI containers.
 */
export function postgresUrl(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  if (url.username === '') url.username = process.env.PGUSER || userInfo().username;
  return url.href;
}

/** `log` sees every query (scripts/explain.ts collects them to check their plans). */
export function connect(config: DbConfig, log?: KyselyConfig['log']): Db {
  const dialect = dialectOf(config.databaseUrl);
  if (dialect === 'sqlite') {
    const sqlite = openSqlite(config.databaseUrl);
    const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }), log });
    return { kysely, dialect, close: () => kysely.destroy() };
  }
  const pool = new pg.Pool({
    connectionString: postgresUrl(config.databaseUrl),
    max: config.databasePoolSize,
    statement_timeout: config.databaseStatementTimeoutMs || undefined,
    ssl: config.databaseSsl ? { rejectUnauthorized: true } : undefined,
  });
  // The server may close an idle connection (restart, failover, pg_terminate_backend): the pool
  // drops it and opens another when needed. Unlistened, that 'error' event would end the process.
  pool.on('error', () => undefined);
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log });
  return { kysely, dialect, close: () => kysely.destroy() };
}
