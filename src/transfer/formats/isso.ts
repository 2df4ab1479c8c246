import SQLite from 'better-sqlite3';
import { decodeHTML } from 'entities/decode';
import { ImportFileError, type SourceRecord, type SourceStatus } from '../source.ts';
import { fromUnixSeconds } from '../times.ts';
import { count, text } from './json-lines.ts';

const STATUS: Record<number, SourceStatus> = { 1: 'published', 2: 'pending' };

/**
 * Isso's SQLite database: `threads(id, uri, title)` and `comments(tid, id, parent, created,
 * modified, mode (1 accepted, 2 waiting, 4 deleted), text, author, email, remote_addr, likes,
 * dislikes)`. Threads are page paths, made absolute on `baseUrl`; times are Unix seconds. The file is
 * opened read-only and read row by row.
 */
export async function* readIsso(path: string, baseUrl: string | undefined): AsyncGenerator<SourceRecord> {
  let db: SQLite.Database;
  try {
    db = new SQLite(path, { readonly: true, fileMustExist: true });
    db.prepare('select id, uri from threads limit 1').all();
  } catch (error) {
    throw new ImportFileError(`not an Isso database: ${(error as Error).message}`);
  }
  try {
    const base = (uri: string) => {
      if (/^https?:\/\//i.test(uri)) return uri;
      if (!baseUrl) throw new ImportFileError('Isso stores page paths: give the site address with --base-url https://example.com');
      return new URL(uri, baseUrl).href;
    };
    for (const thread of db.prepare('select id, uri, title from threads order by id').iterate() as Iterable<{ id: number; uri: string; title: string | null }>) {
      yield { kind: 'thread', sourceId: String(thread.id), url: base(text(thread.uri)), title: text(thread.title) };
    }
    const rows = db.prepare('select tid, id, parent, created, modified, mode, text, author, email, remote_addr, likes, dislikes from comments order by id').iterate();
    for (const row of rows as Iterable<Record<string, unknown>>) {
      const where = `comment ${text(row.id)}`;
      const mode = Number(row.mode);
      yield {
        kind: 'comment',
        sourceId: text(row.id),
        threadSourceId: text(row.tid),
        parentSourceId: row.parent === null || row.parent === undefined ? null : text(row.parent),
        // Isso stores names HTML-escaped: decoded once.
        author: { sourceId: null, name: decodeHTML(text(row.author)), hasEmail: Boolean(text(row.email)), hasIp: Boolean(text(row.remote_addr)) },
        text: text(row.text),
        status: STATUS[mode] ?? (mode === 4 ? 'published' : 'pending'),
        deleted: mode === 4,
        edited: row.modified !== null && row.modified !== undefined,
        createdAt: fromUnixSeconds(Number(row.created), where),
        updatedAt: row.modified ? fromUnixSeconds(Number(row.modified), where) : undefined,
        zoneless: false,
        upvotes: count(row.likes),
        downvotes: count(row.dislikes),
        reactions: {},
        where,
      };
    }
  } finally {
    db.close();
  }
}
