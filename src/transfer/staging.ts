import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { threadKey } from '../comments/thread-url.ts';
import { MAX_AUTHOR_NAME, MAX_CONTENT } from '../comments/text.ts';
import { MAX_TITLE } from '../threads/schemas.ts';
import type { SourceComment, SourceThread } from './source.ts';

/**
 * The first pass writes every record of the file here (a private SQLite file in the temporary
 * directory), so the whole file is read and checked before the site is touched, a reply found
 * before its parent still finds it, and memory holds none of it. The second pass reads it back
 * parent before child.
 */
export class Staging {
  readonly db: SQLite.Database;
  readonly #dir: string;
  readonly #insertComment: SQLite.Statement;
  readonly #insertThread: SQLite.Statement;
  readonly #pageThread: SQLite.Statement;
  readonly #rememberPage: SQLite.Statement;
  readonly #pageSource: SQLite.Statement;
  readonly #pageEarliest: SQLite.Statement;
  readonly #pageTitle: SQLite.Statement;

  constructor() {
    this.#dir = mkdtempSync(join(tmpdir(), 'parley-import-'));
    this.db = new SQLite(join(this.#dir, 'staging.db'));
    this.db.pragma('journal_mode = off');
    this.db.pragma('synchronous = off');
    // better-sqlite3's default page cache is 16 MB, the largest share of an import's memory: the
    // passes over this file read it mostly in order, and the OS caches the file anyway.
    this.db.pragma('cache_size = -2048');
    this.db.exec(`
      create table threads (source_id text primary key, url text, url_key text, parley_id text, created_at text, title text, closed integer not null, deleted integer not null);
      create table comments (
        seq integer primary key, source_id text not null unique, thread_source text not null, parent_source text,
        author_key text, author_source text, author_parley_id text, author_external_id text, author_name text not null,
        content text, status text not null, moderation_status text, deleted integer not null, edited integer not null,
        upvotes integer not null, downvotes integer not null, reactions text not null,
        created_at text not null, updated_at text, zoneless integer not null, parley_id text, place text not null,
        url_key text, parent_seq integer, depth integer, reparented integer not null default 0,
        final_id text, final_root text, final_thread text);
      create table pages (url_key text primary key, thread_id text);`);
    this.#insertComment = this.db.prepare(`insert or ignore into comments
      (source_id, thread_source, parent_source, author_key, author_source, author_parley_id, author_external_id, author_name, content, status, moderation_status, deleted, edited,
       upvotes, downvotes, reactions, created_at, updated_at, zoneless, parley_id, place)
      values (@source_id, @thread_source, @parent_source, @author_key, @author_source, @author_parley_id, @author_external_id, @author_name, @content, @status, @moderation_status, @deleted, @edited,
       @upvotes, @downvotes, @reactions, @created_at, @updated_at, @zoneless, @parley_id, @place)`);
    this.#insertThread = this.db.prepare('insert or ignore into threads (source_id, url, parley_id, created_at, title, closed, deleted) values (?, ?, ?, ?, ?, ?, ?)');
    this.#pageThread = this.db.prepare('select thread_id from pages where url_key = ?');
    this.#rememberPage = this.db.prepare('insert or replace into pages (url_key, thread_id) values (?, ?)');
    this.#pageSource = this.db.prepare(
      "select max(parley_id) as parley_id, min(created_at) as created_at, min(closed) as closed from threads where url_key = ? and (parley_id is null or parley_id like 'thr\\_%' escape '\\')",
    );
    this.#pageTitle = this.db.prepare("select title from threads where url_key = ? and title is not null order by rowid limit 1");
    this.#pageEarliest = this.db.prepare('select min(created_at) as created_at from comments where url_key = ?');
  }

  begin(): void {
    this.db.exec('begin');
  }

  commit(): void {
    this.db.exec('commit');
  }

  /** false: a thread of that source id came earlier. */
  addThread(thread: SourceThread): boolean {
    const title = titleOf(thread.title ?? '');
    return this.#insertThread.run(thread.sourceId, thread.url, thread.parleyId ?? null, thread.createdAt ?? null, title, thread.closed ? 1 : 0, thread.deleted ? 1 : 0).changes === 1;
  }

  /** false: a comment of that source id came earlier (the later one is not kept). */
  addComment(comment: SourceComment, content: string | null, authorName: string, authorKey: string | null): boolean {
    return (
      this.#insertComment.run({
        source_id: comment.sourceId,
        thread_source: comment.threadSourceId,
        parent_source: comment.parentSourceId,
        author_key: authorKey,
        author_source: comment.author.sourceId,
        author_parley_id: comment.author.parleyId ?? null,
        author_external_id: comment.author.externalId ?? null,
        author_name: authorName,
        content,
        status: comment.status,
        moderation_status: comment.moderationStatus !== undefined ? comment.moderationStatus : comment.status === 'published' ? null : comment.status,
        deleted: comment.deleted ? 1 : 0,
        edited: comment.edited ? 1 : 0,
        upvotes: comment.upvotes,
        downvotes: comment.downvotes,
        reactions: JSON.stringify(comment.reactions),
        created_at: comment.createdAt,
        updated_at: comment.updatedAt ?? null,
        zoneless: comment.zoneless ? 1 : 0,
        parley_id: comment.parleyId ?? null,
        place: comment.where,
      }).changes === 1
    );
  }

  /**
   * Keys every thread by Parley's thread key of its page address (so host case and fragment
   * variants of one page meet, and an http:// address meets its https:// twin in the file), hangs every reply on its parent in the same page, and gives
   * each comment its depth.
   */
  resolve(allowedHost: (host: string) => boolean): void {
    const setKey = this.db.prepare('update threads set url_key = ? where source_id = ?');
    // A page of threads at a time: a file may hold as many threads as comments.
    const page = this.db.prepare('select rowid, source_id, url from threads where rowid > ? order by rowid limit 1000');
    this.begin();
    for (let after = 0; ; ) {
      const threads = page.all(after) as { rowid: number; source_id: string; url: string }[];
      if (threads.length === 0) break;
      after = threads.at(-1)!.rowid;
      for (const thread of threads) {
        try {
          const url = threadKey(thread.url);
          if (allowedHost(url.hostname)) setKey.run(url.href, thread.source_id);
        } catch {
          // Left without a key: its comments are skipped and reported.
        }
      }
    }
    // The http:// address of a page whose https:// address the file also holds is that page. Pages
    // are looked up by key from here on (the twin, then pageOrigin once per page): without the index
    // each lookup reads every thread.
    this.db.exec(`
      create index threads_by_page on threads (url_key);
      update threads set url_key = 'https' || substr(url_key, 5)
        where url_key like 'http:%' and exists (select 1 from threads t where t.url_key = 'https' || substr(threads.url_key, 5));
      update comments set url_key = (select url_key from threads t where t.source_id = comments.thread_source);
      update comments set status = 'removed', moderation_status = 'removed'
        where status <> 'spam' and thread_source in (select source_id from threads where deleted = 1);
      create index comments_by_source_page on comments (source_id, url_key);
      update comments set parent_seq = (select p.seq from comments p where p.source_id = comments.parent_source and p.url_key = comments.url_key)
        where parent_source is not null and url_key is not null;
      update comments set reparented = 1 where parent_source is not null and parent_seq is null and url_key is not null;
      create index comments_by_parent on comments (parent_seq);`);
    // A page whose threads carry no time begins with its first comment (pageOrigin): unindexed, each
    // such page's lookup would read every comment. Files whose threads all have times skip the index.
    if (this.db.prepare('select 1 from threads where url_key is not null and created_at is null limit 1').get()) {
      this.db.exec('create index comments_by_page on comments (url_key, created_at)');
    }
    this.#giveDepths();
    this.db.exec('create index comments_in_order on comments (depth, seq) where url_key is not null');
    this.commit();
  }

  /** The site's thread of a page (by its thread key) that this import has found or made, if any. */
  threadOfPage(urlKey: string): string | undefined {
    return (this.#pageThread.get(urlKey) as { thread_id: string } | undefined)?.thread_id;
  }

  rememberThreadOfPage(urlKey: string, threadId: string): void {
    this.#rememberPage.run(urlKey, threadId);
  }

  /**
   * What the file says of a page's thread: the Parley id it had (Parley's format, when one of its
   * source threads has one), when it began (its source threads' earliest time, else its first
   * comment's), and whether it is closed (all its source threads are).
   */
  pageOrigin(urlKey: string): { parleyId: string | null; createdAt: string; closed: boolean } {
    const { parley_id, created_at, closed } = this.#pageSource.get(urlKey) as { parley_id: string | null; created_at: string | null; closed: number };
    return { parleyId: parley_id, createdAt: created_at ?? (this.#pageEarliest.get(urlKey) as { created_at: string }).created_at, closed: closed === 1 };
  }

  /** The page's title: the first its source threads give, in file order. */
  pageTitle(urlKey: string): string | null {
    return (this.#pageTitle.get(urlKey) as { title: string } | undefined)?.title ?? null;
  }

  /** Pages of usable comments that this import has not found or made a thread for (all their comments were there already). */
  pagesNotVisited(): Iterable<string> {
    return this.db.prepare('select distinct url_key from comments where url_key is not null and url_key not in (select url_key from pages)').pluck().iterate() as Iterable<string>;
  }

  /** Source threads the site had deleted, with how many of their comments come in (removed). */
  deletedThreads(): Iterable<{ source: string; comments: number }> {
    return this.db
      .prepare('select t.source_id as source, count(*) as comments from threads t join comments c on c.thread_source = t.source_id where t.deleted = 1 and c.url_key is not null group by t.source_id')
      .iterate() as Iterable<{ source: string; comments: number }>;
  }

  /** After resolve(): the comments whose page is unusable, one at a time (they may be all of them). */
  unusable(): Iterable<{ place: string; source: string; url: string }> {
    return this.db
      .prepare('select c.place, c.source_id as source, coalesce(t.url, c.thread_source) as url from comments c left join threads t on t.source_id = c.thread_source where c.url_key is null')
      .iterate() as Iterable<{ place: string; source: string; url: string }>;
  }

  /**
   * Depth from the top, one level at a time (an indexed update per level); a comment left without
   * one is in a parent cycle (a hostile file) and is made top-level.
   */
  #giveDepths(): void {
    this.db.exec('create index comments_by_depth on comments (depth)');
    const roots = this.db.prepare('update comments set depth = 0 where url_key is not null and parent_seq is null');
    const level = this.db.prepare('update comments set depth = ? where depth is null and parent_seq in (select seq from comments where depth = ?)');
    const cycle = this.db.prepare('select seq from comments where url_key is not null and depth is null limit 1');
    const breakCycle = this.db.prepare('update comments set parent_seq = null, reparented = 1, depth = 0 where seq = ?');
    roots.run();
    for (let depth = 0; ; ) {
      if (level.run(depth + 1, depth).changes > 0) {
        depth++;
        continue;
      }
      const stuck = cycle.get() as { seq: number } | undefined;
      if (!stuck) return;
      breakCycle.run(stuck.seq);
      depth = 0;
    }
  }

  close(): void {
    this.db.close();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

// Zero-width and bidirectional controls make a name read as another one (see comments/text.ts).
const HIDDEN_IN_NAMES = /[\u200B-\u200F\u202A-\u202E\u2060\u2066-\u2069\uFEFF]/g;
const CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/** A thread's title as Parley keeps titles: NFC, one line, no hidden characters, at most MAX_TITLE characters; empty → null. */
export function titleOf(raw: string): string | null {
  const title = raw.normalize('NFC').replace(HIDDEN_IN_NAMES, '').replace(CONTROLS, '').replace(/\s+/g, ' ').trim();
  return title === '' ? null : [...title].slice(0, MAX_TITLE).join('').trimEnd();
}

/** A source author's name as Parley keeps names: NFC, no hidden characters, at most 100 characters; empty → "Anonymous". */
export function authorNameOf(raw: string): string {
  const name = raw.normalize('NFC').replace(HIDDEN_IN_NAMES, '').replace(CONTROLS, '').replace(/\s+/g, ' ').trim();
  return name === '' ? 'Anonymous' : [...name].slice(0, MAX_AUTHOR_NAME).join('');
}

/** A comment's text as Parley stores it (comments/text.ts's rules), and whether it had to be cut. */
export function contentOf(raw: string): { content: string; cut: boolean } {
  const text = raw.replace(/\r\n?/g, '\n').normalize('NFC').replace(CONTROLS, '').trim();
  const chars = [...text];
  return chars.length > MAX_CONTENT ? { content: chars.slice(0, MAX_CONTENT).join('').trimEnd(), cut: true } : { content: text, cut: false };
}
