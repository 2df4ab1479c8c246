import type SQLite from 'better-sqlite3';
import { Worker } from 'node:worker_threads';

const COMMITS = 0;
const STOP = 1;

/**
 * The WAL size, in pages, at which the writer checkpoints by itself while the thread runs. The
 * thread has copied nearly all of them by then, so the writer's checkpoint mostly lets the WAL start
 * over: SQLite restarts it only when a write begins with every page copied, which under steady
 * writes only the writer can arrange (the thread's copy is overtaken by the next commit).
 */
const WRITER_CHECKPOINT_PAGES = 4000;
/** SQLite's own default, restored if the thread stops. */
const DEFAULT_CHECKPOINT_PAGES = 1000;

/**
 * Copies the pages committed to a SQLite database's WAL into the database file on a thread of its
 * own (checkpoint-thread.js), woken by commits and resting 50 ms between checkpoints.
 *
 * By default SQLite checkpoints in the committing connection: every 1,000 pages of WAL, it reads them
 * back and writes them into the database file. On the event loop, that took 15 ms every 11 group
 * commits of 26 comments: 45-70 µs of each comment's creation, whose statements took 130-220 µs in all.
 * With the thread, the commits took 26-42 µs per comment instead of 59-92 µs.
 */
export class Checkpointer {
  readonly #signal = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
  readonly #thread: Worker;
  readonly #stopped: Promise<void>;

  constructor(path: string, writer: SQLite.Database) {
    writer.pragma(`wal_autocheckpoint = ${WRITER_CHECKPOINT_PAGES}`);
    this.#thread = new Worker(new URL('./checkpoint-thread.js', import.meta.url), { workerData: { path, signal: this.#signal } });
    this.#thread.on('message', (problem: string) => process.emitWarning(`SQLite checkpoint thread: ${problem}`));
    this.#stopped = new Promise((resolve) => {
      this.#thread.once('exit', () => resolve());
      // Checkpoints are then the writer's again, as SQLite makes them by default.
      this.#thread.once('error', (error) => {
        process.emitWarning(`SQLite checkpoint thread stopped: ${error.message}`);
        if (writer.open) writer.pragma(`wal_autocheckpoint = ${DEFAULT_CHECKPOINT_PAGES}`);
        resolve();
      });
    });
    // A process that does not close its database (a test, a CLI command) still exits.
    this.#thread.unref();
  }

  committed(): void {
    Atomics.add(this.#signal, COMMITS, 1);
    Atomics.notify(this.#signal, COMMITS);
  }

  async stop(): Promise<void> {
    Atomics.store(this.#signal, STOP, 1);
    Atomics.notify(this.#signal, STOP);
    this.committed();
    // Else nothing would keep the process running until the thread has closed its connection.
    this.#thread.ref();
    await this.#stopped;
  }
}
