import type { Kysely } from 'kysely';
import type { ChangeFeed } from '../db/changes.ts';
import type { Db } from '../db/connect.ts';
import type { Database } from '../db/schema.ts';
import { digestOf, etagOf } from '../http/etag.ts';
import { siteOrNotFound } from '../sites/repository.ts';
import { SHARED_SIZE_PER_BODY_BYTE, shownComments, type ShownComment, type SharedPage } from './public-bytes.ts';
import { findThread, listPublicPageIds, readViewRows, subtreeRevisions, type Sort, type Thread } from './repository.ts';
import { readReplyTrees } from './reply-trees.ts';
import { ResponseCache, type BuiltResponse, type CachedResponse } from './response-cache.ts';
import { RevisionCache } from './revision-cache.ts';
import { threadKey } from './thread-url.ts';
import { isEmptyPlaceholder } from './tree.ts';
import type { CommentPage } from './subtree-page.ts';
import type { ViewRow } from './view.ts';
import { PUBLIC_VIEWER } from './visibility.ts';

export interface ListQuery {
  thread_url: string;
  site_id: string;
  sort?: Sort;
  page?: number;
  limit?: number;
}

/** A top-level comment with its replies as the public's list shows them, serialised. */
interface Subtree {
  /** Empty for a deleted comment with no reply left to show (the list leaves it out). */
  body: Buffer;
  /** A digest of `body`, from which a list's entity tag is derived. */
  digest: string;
  /** Its comments in the order they were serialised (pre-order). */
  comments: ShownComment[];
}

/** A public list response, and where each of its comments stands in it (readers' lists are made from it). */
export type CachedList = CachedResponse<SharedPage>;

export type SerializeComment = (comment: CommentPage) => string;

/** Heap per kept comment besides its JSON (measured: about 220 bytes) and per kept id (about 77), rounded up. */
const BYTES_PER_COMMENT = 256;
const BYTES_PER_ID = 100;

/** Memory for the public's lists: their responses, and the parts they are assembled from. */
export interface PublicListBudget {
  responseBytes: number;
  subtreeBytes: number;
  pageIdBytes: number;
}

/**
 * The public's lists: where they are assembled, kept and cleared. Responses are kept by URL until a
 * write to their thread is announced (response-cache.ts). Beneath them, the parts of lists are kept
 * by revision (revision-cache.ts): each top-level comment's serialised subtree by its
 * `subtree_revision`, and the top-level ids of pages sorted by time by their thread's
 * `listing_revision`, which triggers move with every write that changes them (migration 0007).
 */
export class PublicLists {
  readonly #responses: ResponseCache<SharedPage>;
  readonly #subtrees: RevisionCache<Subtree>;
  readonly #pageIds: RevisionCache<string[]>;

  constructor(changes: ChangeFeed, budget: PublicListBudget) {
    this.#responses = new ResponseCache(changes, budget.responseBytes, SHARED_SIZE_PER_BODY_BYTE);
    this.#subtrees = new RevisionCache(budget.subtreeBytes, (subtree) => subtree.body.length + subtree.comments.length * BYTES_PER_COMMENT);
    this.#pageIds = new RevisionCache(budget.pageIdBytes, (ids) => BYTES_PER_ID * (ids.length + 1));
  }

  /** Kept answers served and answers built, since the start. */
  get responseCounts(): { hits: number; misses: number } {
    return { hits: this.#responses.hits, misses: this.#responses.misses };
  }

  /** The public's list at this URL (`query` is its query string). */
  read(db: Db, url: string, query: ListQuery, serialize: SerializeComment): Promise<CachedList> {
    return this.#responses.read(url, () => this.#assemble(db, query, serialize));
  }

  /**
   * The public's list of a thread as bytes, in the form the list's response schema gives it
   * (`{"comments":[…],"total":…,"page":…}`): the page's top-level ids (kept, for a sort by time),
   * their subtree revisions (primary-key lookups), then each top-level comment with its replies taken
   * serialised from the kept subtrees while its revision is current; only the others are read and
   * serialised. The entity tag is derived from the subtrees' digests and the rest of the bytes, which
   * decide them all.
   */
  async #assemble(db: Db, query: ListQuery, serialize: SerializeComment): Promise<BuiltResponse<SharedPage>> {
    const site = await siteOrNotFound(db.kysely, query.site_id);
    const pageNumber = query.page ?? 1;
    const url = threadKey(query.thread_url, 'querystring/thread_url').href;
    const thread = await findThread(db.kysely, site.id, url);
    const ids = thread ? await pageIdsOf(db.kysely, this.#pageIds, thread, query.sort ?? 'newest', pageNumber, query.limit ?? 20) : [];
    const body: Buffer[] = [LIST_START];
    const digests: string[] = [];
    const page: SharedPage = { subtrees: [] };
    let length = LIST_START.length;
    for (const subtree of await currentSubtrees(db.kysely, this.#subtrees, url, ids, query.limit ?? 20, serialize)) {
      if (subtree.body.length === 0) continue;
      if (digests.length > 0) {
        body.push(COMMA);
        length += COMMA.length;
      }
      page.subtrees.push({ offset: length, comments: subtree.comments });
      body.push(subtree.body);
      digests.push(subtree.digest);
      length += subtree.body.length;
    }
    const end = `],"total":${Number(thread?.public_total ?? 0)},"page":${pageNumber}}`;
    body.push(Buffer.from(end));
    const response = { body: Buffer.concat(body, length + Buffer.byteLength(end)), etag: etagOf(`${digests.join(',')}${end}`) };
    return { siteId: site.id, threadKey: url, response, page };
  }
}

const LIST_START = Buffer.from('{"comments":[');
const COMMA = Buffer.from(',');

/**
 * A page's top-level ids. An order by time changes only when a top-level comment is added or its
 * listing flags change, which is what moves the thread's listing revision, so those pages' ids are
 * kept by it: a deep page then costs what page 1 does. An order by votes changes with every vote on
 * a top-level comment, and is read each time.
 */
async function pageIdsOf(db: Kysely<Database>, kept: RevisionCache<string[]>, thread: Thread, sort: Sort, page: number, limit: number): Promise<string[]> {
  if (sort !== 'newest' && sort !== 'oldest') return listPublicPageIds(db, thread, sort, page, limit);
  const key = `${thread.id}\n${sort}\n${page}\n${limit}`;
  const revision = Number(thread.listing_revision);
  const hit = kept.get(key, revision);
  if (hit) return hit;
  // Read after the revision: if a change came between, the ids are newer than their label and are
  // merely read again next time.
  const ids = await listPublicPageIds(db, thread, sort, page, limit);
  kept.set(key, revision, ids);
  return ids;
}

/**
 * The page's subtrees in its order: kept ones whose revision is current, the rest read now and kept
 * under the revision this read found. That revision was read before their rows, so whatever the rows
 * show is at least that recent: a label is never newer than its content. A subtree is kept per page
 * size, as that decides how much of it a page nests (reply-trees.ts).
 */
async function currentSubtrees(db: Kysely<Database>, kept: RevisionCache<Subtree>, threadUrl: string, ids: string[], limit: number, serialize: SerializeComment): Promise<Subtree[]> {
  const revisionOf = new Map((await subtreeRevisions(db, ids)).map((root) => [root.id, Number(root.subtree_revision)]));
  const keyOf = (id: string) => `${id}\n${limit}`;
  const found = ids.map((id) => (revisionOf.has(id) ? kept.get(keyOf(id), revisionOf.get(id)!) : undefined));
  const missing = ids.filter((id, index) => found[index] === undefined && revisionOf.has(id));
  if (missing.length === 0) return found as Subtree[];
  const read = await readSubtrees(db, threadUrl, missing, limit, serialize);
  for (const [id, subtree] of read) kept.set(keyOf(id), revisionOf.get(id)!, subtree);
  return ids.map((id, index) => found[index] ?? read.get(id)).filter((subtree) => subtree !== undefined);
}

/** Reads and serialises these top-level comments with their share of their visible replies on a page of `limit`. */
async function readSubtrees(db: Kysely<Database>, threadUrl: string, ids: string[], limit: number, serialize: SerializeComment): Promise<Map<string, Subtree>> {
  const { roots, rows } = await readReplyTrees(db, PUBLIC_VIEWER, await readViewRows(db, ids), threadUrl, limit);
  const rowOf = new Map(rows.map((row) => [row.id, row]));
  return new Map(roots.map((root) => [root.id, serialised(root, rowOf, serialize)]));
}

/** A top-level comment's subtree as bytes, and where each comment's marks stand in them. */
function serialised(root: CommentPage, rowOf: Map<string, ViewRow>, serialize: SerializeComment): Subtree {
  if (isEmptyPlaceholder(root)) return { body: Buffer.alloc(0), digest: '', comments: [] };
  const body = Buffer.from(serialize(root));
  return { body, digest: digestOf(body), comments: shownComments(body, root, rowOf) };
}
