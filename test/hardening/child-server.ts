import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connect, type Db } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { bootstrap } from '../../src/sites/bootstrap.ts';

const BIN = fileURLToPath(new URL('../../bin/parley.js', import.meta.url));

/** `parley serve` as its own process, as an operator runs it: for kill -9 and for reading its logs. */
export interface ChildServer {
  url: string;
  process: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
}

/**
 * Resolves once the server is listening and, unless `untilReady` is false, has migrated its database
 * (its /readyz answers 200; it listens before it migrates).
 */
export async function spawnServer(databaseUrl: string, env: Record<string, string> = {}, { untilReady = true } = {}): Promise<ChildServer> {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env, DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 30 s:\n${output}`)), 30_000);
    const look = () => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout!.on('data', look);
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening:\n${output}`)));
  });
  if (untilReady) await readyAt(url);
  return { url, process: child, output: () => output, exited };
}

/** Waits until GET /readyz at `url` answers 200. */
export async function readyAt(url: string, timeoutMs = 30_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    const status = await fetch(`${url}/readyz`).then((response) => response.status, () => 0);
    if (status === 200) return;
    if (Date.now() > giveUpAt) throw new Error(`${url}/readyz still answers ${status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A migrated database with one account, site and admin key, made without starting a server. */
export async function seedDatabase(databaseUrl: string) {
  const db: Db = connect({ databaseUrl, databasePoolSize: 2, databaseStatementTimeoutMs: 0, databaseSsl: false });
  try {
    await migrateToLatest(db);
    return await bootstrap(db.kysely, { siteName: 'Crash site', plan: 'publisher' });
  } finally {
    await db.close();
  }
}

/** Reads the database directly, with its own connection (the server may be dead). */
export async function withDatabase<T>(databaseUrl: string, work: (db: Db) => Promise<T>): Promise<T> {
  const db = connect({ databaseUrl, databasePoolSize: 2, databaseStatementTimeoutMs: 0, databaseSsl: false });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}
