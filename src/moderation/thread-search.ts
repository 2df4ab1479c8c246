import { sql, type Kysely, type SqlBool } from 'kysely';
import { threadKey } from '../comments/thread-url.ts';
import type { Database } from '../db/schema.ts';
import { invalid } from '../errors.ts';

/** The most threads one `thread` search may name: each is a branch of the page's statement. */
export const THREADS_NAMED = 100;

const PATH = 'querystring/thread';

/** A LIKE pattern's literal part: `%`, `_` and the escape character itself match only themselves. */
const literal = (text: string) => text.replace(/[\\%_]/g, '\\$&');

/** SQL: `column` LIKE `pattern`, its escape character said (SQLite has none by default). */
const like = (column: string, pattern: string) => sql<SqlBool>`${sql.ref(column)} like ${pattern} escape '\\'`;

/** Without its trailing slash, so that `/blog/x` and `/blog/x/` name one page. */
const bare = (path: string) => (path.endsWith('/') ? path.slice(0, -1) : path);

/**
 * The thread keys a URL written with or without its scheme or trailing slash may be: http and
 * https, normalised as thread keys are (thread-url.ts), with and without the slash.
 */
function urlKeys(value: string): string[] {
  const rest = value.replace(/^https?:\/\//i, '');
  // A host comes first: letters or digits with a dot or a port (blog.example, localhost:8080).
  if (/\s/.test(rest) || !/^[^/?#]+[.:][^/?#]*([/?#]|$)|^localhost([/?#]|$)/i.test(rest)) return [];
  const keys = new Set<string>();
  for (const scheme of ['https://', 'http://']) {
    let url: URL;
    try {
      url = threadKey(scheme + rest, PATH);
    } catch {
      return [];
    }
    keys.add(url.href);
    if (url.search === '') {
      url.pathname = url.pathname.endsWith('/') ? bare(url.pathname) : `${url.pathname}/`;
      keys.add(url.href);
    }
  }
  return [...keys];
}

const tooMany = () => invalid(PATH, `names more than ${THREADS_NAMED} threads: give more of the title, or the path or URL`);

/**
 * The threads of `siteIds` a moderator's `thread` search names, newest first: those whose title holds
 * the text (case-insensitive), whose URL it is (with or without scheme or trailing slash), or, for
 * a text starting with `/`, whose path it is on any host. Naming more than THREADS_NAMED is refused:
 * the search should say more.
 */
export async function threadsNamed(db: Kysely<Database>, siteIds: string[], value: string): Promise<string[]> {
  const text = value.trim();
  if (text === '') throw invalid(PATH, 'must name a title, a path (/blog/post) or a URL');
  if (siteIds.length === 0) return [];
  const keys = urlKeys(text);
  const named = await db
    .selectFrom('threads')
    .select(['id', 'created_at'])
    .where('site_id', 'in', siteIds)
    .where((eb) => eb.or([sql<SqlBool>`lower(title) like lower(${`%${literal(text)}%`}) escape '\\'`, ...(keys.length > 0 ? [eb('url_key', 'in', keys)] : [])]))
    .orderBy('created_at', 'desc')
    .limit(THREADS_NAMED + 1)
    .execute();
  const found = new Map(named.map((thread) => [thread.id, thread.created_at]));
  if (text.startsWith('/')) {
    for (const thread of await threadsAtPath(db, siteIds, new URL(text, 'http://path.invalid').pathname)) found.set(thread.id, thread.created_at);
  }
  if (found.size > THREADS_NAMED) throw tooMany();
  return [...found].sort((a, b) => (a[1] < b[1] ? 1 : -1)).map(([id]) => id);
}

/** The threads whose URL has this path (with or without its trailing slash) on any host. */
async function threadsAtPath(db: Kysely<Database>, siteIds: string[], path: string) {
  const wanted = bare(path);
  const candidates = await db
    .selectFrom('threads')
    .select(['id', 'created_at', 'url_key'])
    .where('site_id', 'in', siteIds)
    .where((eb) => eb.or([`%://%${literal(wanted)}`, `%://%${literal(wanted)}/`].map((pattern) => like('url_key', pattern))))
    .orderBy('created_at', 'desc')
    .limit(THREADS_NAMED * 2 + 1)
    .execute();
  if (candidates.length > THREADS_NAMED * 2) throw tooMany();
  // LIKE's % may span part of the path too (/a/blog/x), and SQLite's ignores case: the path is compared whole.
  return candidates.filter((thread) => bare(new URL(thread.url_key).pathname) === wanted);
}
