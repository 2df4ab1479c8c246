import { renameSync, rmSync, statSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import { createOwnerOnlyFile, sqlitePath } from '../db/connect.ts';
import { dialectOf } from '../db/dialect.ts';

export class BackupRefused extends Error {}

export interface BackupReport {
  source: string;
  to: string;
  pages: number;
  bytes: number;
  ms: number;
}

/**
 * SQLite's online backup API copies the database page by page. A write by another connection (the
 * running server) between two steps restarts the copy from the first page, so under steady writes a
 * copy in small steps may never finish: it is taken in one step, one read transaction, which in WAL
 * mode holds up no writer and sees exactly what was committed when it began.
 */
const ALL_PAGES = 0x7fffffff;

/**
 * `parley backup --to FILE`: a consistent copy of a live SQLite database, checked with
 * `PRAGMA integrity_check` before it takes the name FILE (until then it is FILE.partial, so a failed
 * backup never leaves a half copy under the name). The database itself is only read.
 */
export async function backupSqlite(databaseUrl: string, to: string): Promise<BackupReport> {
  if (dialectOf(databaseUrl) === 'postgres') throw new BackupRefused(postgresAdvice(databaseUrl, to));
  const source = sqlitePath(databaseUrl);
  if (source === ':memory:') throw new BackupRefused('DATABASE_URL names an in-memory database: there is nothing to back up');
  const partial = `${to}.partial`;
  rmSync(partial, { force: true });
  createOwnerOnlyFile(partial);
  const started = Date.now();
  const database = new SQLite(source, { fileMustExist: true });
  let pages: number;
  try {
    // better-sqlite3's first step copies nothing; the callback sets the size of the next ones.
    pages = (await database.backup(partial, { progress: () => ALL_PAGES })).totalPages;
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    database.close();
  }
  const copy = new SQLite(partial, { fileMustExist: true });
  let problems: string[];
  try {
    problems = (copy.pragma('integrity_check') as Array<{ integrity_check: string }>).map((row) => row.integrity_check);
  } finally {
    copy.close();
  }
  if (problems.length !== 1 || problems[0] !== 'ok') {
    rmSync(partial, { force: true });
    throw new Error(`the copy failed its integrity check, so it was removed: ${problems.slice(0, 5).join('; ')}`);
  }
  renameSync(partial, to);
  return { source, to, pages, bytes: statSync(to).size, ms: Date.now() - started };
}

/** What to run instead on PostgreSQL, for the same database (its password left out). */
function postgresAdvice(databaseUrl: string, to: string): string {
  const url = new URL(databaseUrl);
  url.password = '';
  return [
    'parley backup copies SQLite databases; on PostgreSQL use its own tools:',
    `  pg_dump --format=custom --file=${quoted(to)} ${quoted(url.href)}`,
    '(the password from PGPASSWORD or ~/.pgpass), restored with',
    `  pg_restore --dbname=<empty database> ${quoted(to)}`,
    'or continuous archiving (pg_basebackup and WAL archiving) for point-in-time recovery.',
  ].join('\n');
}

function quoted(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

export function describeBackup(report: BackupReport): string {
  const mb = (report.bytes / 1024 / 1024).toFixed(1);
  return `backed up ${report.source} to ${report.to}: ${report.pages} pages (${mb} MB) in ${(report.ms / 1000).toFixed(1)} s; integrity check: ok\n`;
}
