import { closeSync, mkdirSync, openSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, type KyselyConfig } from 'kysely';
import pg from 'pg';
import type { Config, MailConfig } from '../config.ts';
import { Tally } from '../metrics/tally.ts';
import { SignalStore } from '../spam/signal-store.ts';
import { ModelCache } from '../spam/classifier/cache.ts';
import { ChangeFeed } from './changes.ts';
import { keepingStatements } from './kept-statements.ts';
import { groupCommitDialect, GroupCommitSqlite } from './sqlite-driver.ts';
import { dialectOf, type DialectName } from './dialect.ts';
import type { Database } from './schema.ts';

export interface Db {
  kysely: Kysely<Database>;
  dialect: DialectName;
  /** Write paths announce the threads they changed here, after commit (caches listen). */
  changes: ChangeFeed;
  /** The spam checks' signals: kept in memory, written to the table behind the comments. */
  spamSignals: SignalStore;
  /** The sites' spam classifier models, in memory (src/spam/classifier/cache.ts). */
  classifierModels: ModelCache;
  /** Mail settings when mail is on (PARLEY_SMTP_URL), or null: write paths queue mails only then. */
  mail: MailConfig | null;
  /** Statements that failed, by error code (SQLSTATE on PostgreSQL), since the start. */
  queryErrors: Tally;
  /** The PostgreSQL pool's connections now; null on SQLite. */
  poolUse(): PoolUse | null;
  close(): Promise<void>;
}

export interface PoolUse {
  max: number;
  open: number;
  idle: number;
  /** Requests waiting for a connection. */
  waiting: number;
}

type DbConfig = Pick<Config, 'databaseUrl' | 'databasePoolSize' | 'databaseStatementTimeoutMs' | 'databaseSsl'> &
  Partial<Pick<Config, 'mail'>> & {
    /**
     * The connection writes in large transactions (an import's batches of 2,000 comments), not a
     * server's small ones: SQLite keeps their journals in temporary files, not in memory.
     */
    bulkWrites?: boolean;
  };

export function sqlitePath(databaseUrl: string): string {
  const path = databaseUrl.replace(/^(sqlite|file):(\/\/)?/, '');
  return path === '' ? ':memory:' : path;
}

/**
 * Creates a database file its owner alone may read (SQLite would make it 0644): a database and its
 * copies hold SSO, webhook and form secrets. SQLite gives its -wal, -shm and journal files the mode
 * of the database file. A file that exists keeps the mode its operator gave it.
 */
export function createOwnerOnlyFile(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

function openSqlite(path: string, bulkWrites: boolean): SQLite.Database {
  if (path !== ':memory:') {
    // A directory made for the database is its owner's alone too (one that exists is left as it is).
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    createOwnerOnlyFile(path);
  }
  const sqlite = new SQLite(path);
  // WAL lets readers run beside the writer. With synchronous=NORMAL a commit is in the WAL (the OS's
  // page cache) before it is acknowledged: it survives a killed process, and only a power cut can
  // roll back the last commits, never corrupt the file. FULL would fsync every commit (~10x slower).
  // busy_timeout lets the CLI write while a server runs (a group-commit writer waits its own way: sqlite-driver.ts).
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // The default 2 MB page cache thrashes once the indexes of a large thread outgrow it; 8 MB for
  // each of the two connections keeps the process well under its memory budget. An import's batch
  // changes pages of every index: with 32 MB fewer of them are spilled and written again before
  // COMMIT (a 100,000-comment import: 14.9 s of CPU against 16.5 s, 218 MB at the peak against 184).
  sqlite.pragma(bulkWrites ? 'cache_size = -32768' : 'cache_size = -8192');
  // SQLite keeps the pages a statement or a transaction of the commit group changes in a journal,
  // to undo it alone; by default a temporary file, which took 26 writes to it for each comment
  // inserted. In memory, that insert took 33-36 µs instead of 73-74 µs. It holds the pages of one
  // transaction: a few dozen. Not so in bulk: a batch of 1,000 imported comments changes a page of
  // each of a dozen indexes for nearly every comment once the tables are large, and in memory that
  // journal held 58 MB at 200,000 comments, more as the tables grew. A bulk connection's transactions
  // now take no savepoint (sqlite-driver.ts), and the journals its statements still keep go to a
  // file (SQLite keeps the first 64 KiB in memory), which the OS caches outside the process.
  if (!bulkWrites) sqlite.pragma('temp_store = memory');
  return sqlite;
}

async function closeAll(kysely: Kysely<Database>, changes: ChangeFeed, spamSignals: SignalStore): Promise<void> {
  await changes.close();
  await spamSignals.close();
  await kysely.destroy();
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
    const path = sqlitePath(config.databaseUrl);
    const sqlite = GroupCommitSqlite.open(path === ':memory:' ? path : resolve(path), () => openSqlite(path, config.bulkWrites ?? false), { bulk: config.bulkWrites });
    const kysely = new Kysely<Database>({ dialect: groupCommitDialect(sqlite), log });
    const changes = new ChangeFeed(true);
    const spamSignals = new SignalStore(kysely, dialect);
    return { kysely, dialect, changes, spamSignals, classifierModels: new ModelCache(), mail: config.mail ?? null, queryErrors: sqlite.errors, poolUse: () => null, close: () => closeAll(kysely, changes, spamSignals) };
  }
  const pool = new pg.Pool({
    connectionString: postgresUrl(config.databaseUrl),
    max: config.databasePoolSize,
    statement_timeout: config.databaseStatementTimeoutMs || undefined,
    ssl: config.databaseSsl ? { rejectUnauthorized: true } : undefined,
    // No JIT compilation: the visibility walks' recursive CTEs are estimated far above its threshold
    // whatever their real size, and compiling one cost about 2 s of the server's CPU for a query that
    // runs in a millisecond (a reply's listing refresh in a 100,000-comment thread). A connection
    // string that sets its own `options` replaces this.
    options: '-c jit=off',
  });
  // The server may close an idle connection (restart, failover, pg_terminate_backend): the pool
  // drops it and opens another when needed. Unlistened, that 'error' event would end the process.
  pool.on('error', () => undefined);
  const queryErrors = new Tally();
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool: keepingStatements(pool, queryErrors) }), log });
  const changes = new ChangeFeed(false);
  const poolUse = () => ({ max: config.databasePoolSize, open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });
  const spamSignals = new SignalStore(kysely, dialect);
  return { kysely, dialect, changes, spamSignals, classifierModels: new ModelCache(), mail: config.mail ?? null, queryErrors, poolUse, close: () => closeAll(kysely, changes, spamSignals) };
}
