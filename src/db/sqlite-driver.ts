import type SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  ValueNode,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type LimitNode,
  type QueryCompiler,
  type QueryResult,
} from 'kysely';
import { Tally } from '../metrics/tally.ts';
import { Checkpointer } from './checkpointer.ts';

/** How long a write waits for another process to release the database's write lock (busy_timeout's 5 s). */
const WRITE_LOCK_WAIT_MS = 5000;
const WRITE_LOCK_RETRY_MS = 20;

/**
 * SQLite for a server that writes a lot: group commit, prepared statements kept, reads beside writes.
 *
 * One writer connection runs every transaction as a SAVEPOINT inside a shared BEGIN IMMEDIATE; the
 * transactions that finish in one turn of the event loop are made durable by a single COMMIT, and
 * each caller's `commit` resolves only after that COMMIT, so nothing is acknowledged before it is in
 * the WAL (durable against a killed process under synchronous=NORMAL). A failed transaction rolls
 * back to its own savepoint and leaves the others of its group alone.
 *
 * Plain statements outside a transaction run on a second, reader connection when they are read-only,
 * so they see committed data only, never a group that is still open. Any other plain statement is a
 * one-statement transaction of the writer.
 */
export class GroupCommitSqlite {
  /**
   * One per database file in a process: two writers there would deadlock, the second blocking the
   * thread in busy_timeout while the first waits for that thread to COMMIT.
   */
  static readonly #open = new Map<string, { sqlite: GroupCommitSqlite; users: number }>();

  /** Statements that failed, by SQLite's error code (on /metrics). */
  readonly errors = new Tally();

  /**
   * `bulk`: for one writer of large transactions in turn (an import's batches). Its transactions take
   * no savepoint: a savepoint's journal holds every page the transaction changes until it ends, for a
   * batch of 1,000 imported comments tens of MB, written out to a temporary file and read back at
   * the end. A failed transaction then rolls back its whole group, which in turn is itself alone.
   */
  static open(path: string, connect: () => SQLite.Database, { bulk = false } = {}): GroupCommitSqlite {
    const inMemory = path === ':memory:';
    const shared = inMemory ? undefined : GroupCommitSqlite.#open.get(path);
    if (shared) {
      shared.users += 1;
      return shared.sqlite;
    }
    const sqlite = new GroupCommitSqlite(connect, inMemory, path, !bulk);
    if (!inMemory) GroupCommitSqlite.#open.set(path, { sqlite, users: 1 });
    return sqlite;
  }

  readonly #path: string;
  readonly #writer: SQLite.Database;
  readonly #reader: SQLite.Database;
  readonly #writerStatements: StatementCache;
  readonly #readerStatements: StatementCache;
  readonly #writerLock = new FifoLock();
  readonly #checkpointer: Checkpointer | null;
  readonly #savepoints: boolean;
  #groupOpen = false;
  #waiting: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  #flushScheduled = false;

  private constructor(open: () => SQLite.Database, inMemory: boolean, path: string, savepoints: boolean) {
    this.#path = path;
    this.#savepoints = savepoints;
    this.#writer = open();
    this.#writer.pragma('busy_timeout = 0');
    // An in-memory database exists once per connection, so there it reads through the writer.
    this.#reader = inMemory ? this.#writer : open();
    this.#writerStatements = new StatementCache(this.#writer);
    this.#readerStatements = inMemory ? this.#writerStatements : new StatementCache(this.#reader);
    this.#checkpointer = inMemory ? null : new Checkpointer(path, this.#writer);
  }

  /** Runs one statement outside any transaction. */
  async runPlain(query: CompiledQuery): Promise<QueryResult<unknown>> {
    const prepared = this.#readerStatements.get(query.sql);
    if (prepared.statement.readonly && !(this.#reader === this.#writer && this.#groupOpen)) return execute(prepared, query);
    await this.begin();
    let result: QueryResult<unknown>;
    try {
      result = execute(this.#writerStatements.get(query.sql), query);
    } catch (error) {
      this.rollback();
      throw error;
    }
    await this.release();
    return result;
  }

  runInTransaction(query: CompiledQuery): QueryResult<unknown> {
    return execute(this.#writerStatements.get(query.sql), query);
  }

  /** Takes the writer and opens a savepoint for one transaction (and the group, if none is open). */
  async begin(): Promise<void> {
    await this.#writerLock.acquire();
    try {
      if (!this.#groupOpen) {
        await this.#beginImmediate();
        this.#groupOpen = true;
      }
      if (this.#savepoints) this.#writerStatements.get('savepoint parley_trx').statement.run();
    } catch (error) {
      this.#writerLock.release();
      throw error;
    }
  }

  /**
   * Takes the database's write lock. While another process holds it (a CLI import, another instance
   * migrating, a backup tool), SQLite's busy_timeout would wait inside the call and stop the event
   * loop: no read, no /readyz, no stream heartbeat for up to 5 s. So the writer has no busy_timeout
   * and the wait happens here, between turns of the event loop, for as long as busy_timeout allowed.
   */
  async #beginImmediate(): Promise<void> {
    const giveUpAt = Date.now() + WRITE_LOCK_WAIT_MS;
    for (;;) {
      try {
        this.#writerStatements.get('begin immediate').statement.run();
        return;
      } catch (error) {
        if (!String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY') || Date.now() >= giveUpAt) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, WRITE_LOCK_RETRY_MS));
    }
  }

  /**
   * Ends the transaction begun last (it keeps the writer if this throws; roll it back then) and
   * returns a promise of its group's COMMIT.
   */
  release(): Promise<void> {
    if (this.#savepoints) this.#writerStatements.get('release parley_trx').statement.run();
    const durable = new Promise<void>((resolve, reject) => this.#waiting.push({ resolve, reject }));
    this.#writerLock.release();
    this.#scheduleFlush();
    return durable;
  }

  rollback(): void {
    try {
      if (this.#writer.inTransaction && this.#savepoints) {
        this.#writerStatements.get('rollback to parley_trx').statement.run();
        this.#writerStatements.get('release parley_trx').statement.run();
      } else if (this.#writer.inTransaction) {
        this.#writerStatements.get('rollback').statement.run();
      }
    } finally {
      // Without savepoints, or when SQLite ends the whole transaction on an error (disk full, I/O),
      // the group is lost.
      if (this.#groupOpen && !this.#writer.inTransaction) this.#endGroup(new Error('the transaction group was rolled back'));
      this.#writerLock.release();
    }
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => void this.#flush());
  }

  async #flush(): Promise<void> {
    await this.#writerLock.acquire();
    this.#flushScheduled = false;
    try {
      if (!this.#groupOpen) return;
      try {
        this.#writerStatements.get('commit').statement.run();
        this.#endGroup(null);
        this.#checkpointer?.committed();
      } catch (error) {
        if (this.#writer.inTransaction) this.#writer.exec('rollback');
        this.#endGroup(error);
      }
    } finally {
      this.#writerLock.release();
    }
  }

  #endGroup(error: unknown): void {
    this.#groupOpen = false;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const waiter of waiting) {
      if (error === null) waiter.resolve();
      else waiter.reject(error);
    }
  }

  async close(): Promise<void> {
    const shared = GroupCommitSqlite.#open.get(this.#path);
    if (shared && shared.sqlite === this && --shared.users > 0) return;
    GroupCommitSqlite.#open.delete(this.#path);
    await this.#flush();
    await this.#checkpointer?.stop();
    if (this.#reader !== this.#writer) this.#reader.close();
    this.#writer.close();
  }
}

function execute({ statement, toRow }: Prepared, query: CompiledQuery): QueryResult<unknown> {
  const parameters = query.parameters as unknown[];
  if (toRow) return { rows: (statement.all(parameters) as unknown[][]).map(toRow) };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
}

/** A kept statement, and for one that returns rows, the function that makes a row object of its values. */
interface Prepared {
  statement: SQLite.Statement;
  toRow: ((values: unknown[]) => Record<string, unknown>) | null;
}

/**
 * better-sqlite3 builds a row object through V8's C++ API one property at a time, which took half of
 * the time of a list query (44 rows of 21 columns: 119 µs as objects, 60 µs as arrays turned into
 * objects by a literal). So statements return arrays, and each statement gets a function with an
 * object literal of its columns (names JSON-quoted; a repeated name keeps its last value, as the
 * object form does).
 */
function prepare(database: SQLite.Database, sql: string): Prepared {
  const statement = database.prepare(sql);
  if (!statement.reader) return { statement, toRow: null };
  statement.raw(true);
  const fields = statement.columns().map((column, index) => `${JSON.stringify(column.name)}: values[${index}]`);
  const toRow = new Function('values', `return { ${fields.join(', ')} };`) as Prepared['toRow'];
  return { statement, toRow };
}

/**
 * Kysely would prepare every statement anew, and preparing costs more than running an indexed
 * lookup. Parley issues a small fixed set of statements (plus `in (...)` lists of varying length),
 * so prepared statements are kept, the least recently used dropped past its size.
 */
class StatementCache {
  readonly #statements = new Map<string, Prepared>();
  constructor(
    private readonly database: SQLite.Database,
    private readonly size = 500,
  ) {}

  get(sql: string): Prepared {
    let prepared = this.#statements.get(sql);
    if (prepared) {
      this.#statements.delete(sql);
    } else {
      prepared = prepare(this.database, sql);
      if (this.#statements.size >= this.size) this.#statements.delete(this.#statements.keys().next().value!);
    }
    this.#statements.set(sql, prepared);
    return prepared;
  }
}

/** A mutex that hands over in arrival order, so a pending COMMIT is not starved by new transactions. */
class FifoLock {
  #held = false;
  readonly #queue: Array<() => void> = [];

  acquire(): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#queue.push(resolve));
  }

  release(): void {
    const next = this.#queue.shift();
    if (next) next();
    else this.#held = false;
  }
}

/** BEGIN, COMMIT or ROLLBACK sent as SQL on a connection (the migration session does). */
const TRANSACTION_CONTROL = /^\s*(begin(?:\s+(?:deferred|immediate|exclusive))?|commit|end|rollback)\s*;?\s*$/i;

/** The connection Kysely sees: plain until it begins a transaction, then the writer's. */
class Connection implements DatabaseConnection {
  inTransaction = false;
  constructor(private readonly sqlite: GroupCommitSqlite) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const control = TRANSACTION_CONTROL.exec(query.sql)?.[1].toLowerCase();
    if (control !== undefined) {
      await this.#control(control);
      return { rows: [] };
    }
    try {
      const result = this.inTransaction ? this.sqlite.runInTransaction(query) : await this.sqlite.runPlain(query);
      return result as QueryResult<R>;
    } catch (error) {
      this.sqlite.errors.add(String((error as { code?: unknown }).code ?? 'unknown'));
      throw error;
    }
  }

  /** Explicit transaction SQL becomes a transaction of the group, like Kysely's own. */
  async #control(statement: string): Promise<void> {
    if (statement.startsWith('begin')) {
      if (this.inTransaction) throw new Error('cannot start a transaction within a transaction');
      await this.sqlite.begin();
      this.inTransaction = true;
      return;
    }
    if (!this.inTransaction) throw new Error('cannot commit or roll back - no transaction is active');
    if (statement === 'rollback') {
      this.inTransaction = false;
      this.sqlite.rollback();
      return;
    }
    const durable = this.sqlite.release();
    this.inTransaction = false;
    await durable;
  }

  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('Parley does not stream SQLite queries');
  }
}

class GroupCommitDriver implements Driver {
  constructor(private readonly sqlite: GroupCommitSqlite) {}
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return new Connection(this.sqlite);
  }
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await this.sqlite.begin();
    (connection as Connection).inTransaction = true;
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const durable = this.sqlite.release();
    (connection as Connection).inTransaction = false;
    await durable;
  }
  /** Also called when the commit failed: only a transaction that still holds the writer rolls back. */
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (!(connection as Connection).inTransaction) return;
    (connection as Connection).inTransaction = false;
    this.sqlite.rollback();
  }
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {
    await this.sqlite.close();
  }
}

export function groupCommitDialect(sqlite: GroupCommitSqlite): Dialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new GroupCommitDriver(sqlite),
    createIntrospector: (db: Kysely<any>) => new SqliteIntrospector(db),
    createQueryCompiler: (): QueryCompiler => new LiteralLimitCompiler(),
  };
}

/**
 * Writes a number given to `limit` into the SQL. SQLite's planner reads the value bound to a LIMIT,
 * so binding one expires the statement, and every run prepared it again: the spam checks' read of
 * who posted a text (`limit ?`) cost 134,000 instructions a comment in that (callgrind), more than
 * the read itself. A query of several page sizes is then one statement per size, kept by the
 * statement cache. (OFFSET expires nothing: left bound.)
 */
class LiteralLimitCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    if (ValueNode.is(node.limit) && Number.isSafeInteger(node.limit.value)) this.append(`limit ${node.limit.value as number}`);
    else super.visitLimit(node);
  }
}
