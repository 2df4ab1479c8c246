// The checkpoint thread of a SQLite database (see checkpointer.ts). Plain JavaScript: Node loads a
// worker thread's script by itself, outside tsx, Vitest and the bundle.
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';

/** @type {{ path: string, signal: Int32Array }} */
const { path, signal } = workerData;
const COMMITS = 0;
const STOP = 1;

const database = new SQLite(path);
// It syncs the WAL before copying from it and the database file after, as the writer's own would.
database.pragma('synchronous = NORMAL');
let copied = Atomics.load(signal, COMMITS);
while (Atomics.load(signal, STOP) === 0) {
  Atomics.wait(signal, COMMITS, copied);
  copied = Atomics.load(signal, COMMITS);
  if (Atomics.load(signal, STOP) !== 0) break;
  try {
    // PASSIVE copies what no reader still needs and never waits: the writer goes on meanwhile.
    database.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    parentPort?.postMessage(error instanceof Error ? error.message : String(error));
  }
}
database.close();
