import { sql } from 'kysely';
import type { ChangeFeed } from '../db/changes.ts';
import type { Db } from '../db/connect.ts';
import { preparedQuery } from '../db/prepared.ts';
import { toCount } from '../db/dialect.ts';
import { siteOrNotFound } from '../sites/repository.ts';
import { ResponseCache, taggedResponse, type TaggedResponse } from '../comments/response-cache.ts';
import { threadKey } from '../comments/thread-url.ts';
import { PUBLIC_VIEWER, visibleTo } from '../comments/visibility.ts';

/**
 * What a kept count is taken to hold in memory per digit of its body: with one to three digits, 200
 * to 600 bytes, which covers its key (site and thread URL, about 100 characters), its entry and its
 * place in the thread's set (ResponseCache sizes entries by their bodies).
 */
const BYTES_PER_DIGIT = 200;

/**
 * How many comments the public sees in each of these threads (by thread key) of the site, in one
 * statement: a walk down from each thread's visible top-level comments through visible replies (the
 * (parent_id, created_at) index), so a hidden comment hides its subtree. Deleted comments are walked
 * through (their replies stay in the thread) but not counted. A thread that does not exist is absent.
 */
const publicCounts = preparedQuery((db, _count: number, siteId: string, ...keys: string[]) =>
  sql<{ url_key: string; n: number | string }>`
    with recursive wanted(id, url_key) as (
      select id, url_key from threads where site_id = ${siteId} and url_key in (${sql.join(keys)})
    ), shown(id, thread_id, is_deleted) as (
      select c.id, c.thread_id, c.is_deleted from comments c join wanted w on c.thread_id = w.id
      where c.parent_id is null and ${visibleTo(PUBLIC_VIEWER, 'c')}
      union all
      select d.id, shown.thread_id, d.is_deleted from comments d join shown on d.parent_id = shown.id
      where ${visibleTo(PUBLIC_VIEWER, 'd')}
    )
    select w.url_key, count(*) as n from shown join wanted w on w.id = shown.thread_id
    where shown.is_deleted = 0 group by w.url_key`.compile(db),
);

/** An answer of GET /v1/counts, kept by its URL while no write to its site came after it was read. */
interface KeptAnswer {
  siteId: string;
  siteVersion: number;
  response: TaggedResponse;
}

/** What a kept answer holds besides its bytes (its URL, about 5 kB for 100 threads, and the entry), rounded up. */
const BYTES_PER_ANSWER = 6 * 1024;

/**
 * The public's comment counts, kept per thread (site and thread key) until a write to the thread is
 * announced on the change feed (response-cache.ts, which also keeps nothing while this instance may
 * miss another's writes). Only the threads not kept are read, all in one statement.
 *
 * An index page asks for the same hundred threads again and again, so whole answers are kept too,
 * by URL, until any write to their site: parsing a hundred URLs and writing the answer costs more
 * than the rest of the request. Half the memory goes to each.
 */
export class PublicCounts {
  readonly #counts: ResponseCache<number>;
  readonly #answers = new Map<string, KeptAnswer & { size: number }>();
  /** Moves with every write announced for a site (its answers read before are stale). */
  readonly #siteVersions = new Map<string, number>();
  readonly #answerBytes: number;
  #bytes = 0;

  constructor(
    private readonly changes: ChangeFeed,
    bytes: number,
  ) {
    this.#counts = new ResponseCache(changes, bytes / 2, BYTES_PER_DIGIT);
    this.#answerBytes = bytes / 2;
    changes.listen(({ siteId }) => this.#siteVersions.set(siteId, (this.#siteVersions.get(siteId) ?? 0) + 1));
    changes.onReset(() => {
      this.#answers.clear();
      this.#bytes = 0;
    });
  }

  /**
   * The answer at `url` (the request's path and query): `{"counts":{…}}` by each of `urls` exactly as
   * sent, kept or built now. A write to the site while it is built leaves it out of the cache.
   */
  async answer(db: Db, url: string, siteId: string, urls: string[]): Promise<TaggedResponse> {
    const siteVersion = this.#siteVersions.get(siteId) ?? 0;
    const kept = this.#answers.get(url);
    if (kept && kept.siteVersion === siteVersion && this.changes.hearsEveryChange) {
      this.#answers.delete(url);
      this.#answers.set(url, kept);
      return kept.response;
    }
    const keys = urls.map((raw) => threadKey(raw, 'querystring/url').href);
    const counts = await this.#of(db, siteId, keys);
    const response = taggedResponse(Buffer.from(JSON.stringify({ counts: Object.fromEntries(urls.map((raw, index) => [raw, counts.get(keys[index])!])) })));
    if (this.changes.hearsEveryChange) this.#keep(url, { siteId, siteVersion, response });
    return response;
  }

  #keep(url: string, answer: KeptAnswer): void {
    const size = BYTES_PER_ANSWER + answer.response.body.length;
    this.#forget(url);
    if (size > this.#answerBytes) return;
    this.#answers.set(url, { ...answer, size });
    this.#bytes += size;
    while (this.#bytes > this.#answerBytes) this.#forget(this.#answers.keys().next().value!);
  }

  #forget(url: string): void {
    const kept = this.#answers.get(url);
    if (!kept) return;
    this.#answers.delete(url);
    this.#bytes -= kept.size;
  }

  /** Each thread key's count (0 for a thread with no comments or none at all). */
  async #of(db: Db, siteId: string, keys: string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    const missing: string[] = [];
    for (const key of new Set(keys)) {
      const kept = this.#counts.get(keyOf(siteId, key));
      if (kept) counts.set(key, kept.page);
      else missing.push(key);
    }
    if (missing.length === 0) return counts;
    this.#counts.misses += missing.length;
    // Nothing kept: the site may not exist (a kept count means it did when it was read; deleting a site clears its threads).
    if (counts.size === 0) await siteOrNotFound(db.kysely, siteId);
    const readStartedAt = this.#counts.startRead();
    const rows = await publicCounts(db.kysely, missing.length, siteId, ...missing);
    const read = new Map(rows.map((row) => [row.url_key, toCount(row.n)]));
    for (const key of missing) {
      const n = read.get(key) ?? 0;
      counts.set(key, n);
      this.#counts.keep(keyOf(siteId, key), readStartedAt, { siteId, threadKey: key, response: taggedResponse(Buffer.from(String(n))), page: n });
    }
    return counts;
  }
}

function keyOf(siteId: string, threadKey: string): string {
  return `${siteId}\n${threadKey}`;
}
