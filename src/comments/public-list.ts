import type { Kysely } from 'kysely';
import type { Db } from '../db/connect.ts';
import type { Database } from '../db/schema.ts';
import { digestOf, etagOf } from '../http/etag.ts';
import { siteOrNotFound } from '../sites/repository.ts';
import { findThread, listPublicPageIds, readRoots, subtreeRevisions, type Markable, type Sort, type Thread } from './repository.ts';
import type { TaggedResponse } from './response-cache.ts';
import type { ReaderList } from './reader-list.ts';
import type { KnownMarks } from './reader-marks.ts';
import { RevisionCache } from './revision-cache.ts';
import { readReplyTrees, type ListQuery } from './service.ts';
import { threadKey } from './thread-url.ts';
import { isEmptyPlaceholder } from './tree.ts';
import { markableRow, type CommentView, type ViewRow } from './view.ts';
import { PUBLIC_VIEWER } from './visibility.ts';

/** The public's marks as the serialiser writes them, once in every comment. */
export const PUBLIC_MARKS = '"user_vote":null,"user_reaction":null,"user_is_author":false';

/** A comment of a serialised subtree: where its marks stand, who wrote it, what a reader may have marked. */
export interface ShownComment extends Markable {
  /** Byte offset of its public marks in the subtree's bytes. */
  at: number;
  authorRef: string | null;
}

/** A top-level comment with its replies as the public's list shows them, serialised. */
export interface Subtree {
  /** Empty for a deleted comment with no reply left to show (the list leaves it out). */
  body: Buffer;
  /** A digest of `body`, from which a list's entity tag is derived. */
  digest: string;
  /** Its comments in the order they were serialised (pre-order). */
  comments: ShownComment[];
}

/** A public list's subtrees in the order of its bytes, each with the offset of its bytes in the list's. */
export interface PublicPage {
  subtrees: Array<{ offset: number; comments: ShownComment[] }>;
}

/**
 * What lists are assembled from, kept by revision (see revision-cache.ts): each top-level comment's
 * serialised subtree by its `subtree_revision`, the top-level ids of pages sorted by time by their
 * thread's `listing_revision`, and session readers' marks and their last list by their
 * `marks_revision` (reader-marks.ts, reader-list.ts).
 */
export interface ListParts {
  subtrees: RevisionCache<Subtree>;
  pageIds: RevisionCache<string[]>;
  readerMarks: RevisionCache<KnownMarks>;
  readerLists: RevisionCache<ReaderList>;
}

/** Heap per kept comment besides its JSON (measured: about 220 bytes) and per kept id (about 77; a reader's looked-up comment too), rounded up. */
const BYTES_PER_COMMENT = 256;
const BYTES_PER_ID = 100;

/**
 * Parts kept in `megabytes` of memory: subtrees take five eighths; page ids, readers' marks and
 * readers' lists an eighth each. With 0 nothing is kept.
 */
export function listParts(megabytes: number): ListParts {
  const bytes = megabytes * 1024 * 1024;
  return {
    subtrees: new RevisionCache(bytes * 0.625, (subtree) => subtree.body.length + subtree.comments.length * BYTES_PER_COMMENT),
    pageIds: new RevisionCache(bytes * 0.125, (ids) => BYTES_PER_ID * (ids.length + 1)),
    readerMarks: new RevisionCache(bytes * 0.125, (known) => BYTES_PER_ID * (known.votesLookedUp.size + known.reactionsLookedUp.size + 1)),
    // A list that is the public's own bytes holds nothing of its own.
    readerLists: new RevisionCache(bytes * 0.125, (list) => BYTES_PER_ID + (list.copied ? list.response.body.length : 0)),
  };
}

export type SerializeComment = (comment: CommentView) => string;

const LIST_START = Buffer.from('{"comments":[');
const COMMA = Buffer.from(',');

/**
 * The public's list of a thread as bytes, in the form the list's response schema gives it
 * (`{"comments":[…],"total":…,"page":…}`): the page's top-level ids (kept, for a sort by time), their
 * subtree revisions (primary-key lookups), then each top-level comment with its replies taken
 * serialised from `parts` while its revision is current; only the others are read and serialised.
 * The entity tag is derived from the subtrees' digests and the rest of the bytes, which decide them all.
 */
export async function readPublicList(
  db: Db,
  parts: ListParts,
  query: ListQuery,
  serialize: SerializeComment,
): Promise<{ response: TaggedResponse; page: PublicPage }> {
  const site = await siteOrNotFound(db.kysely, query.site_id);
  const pageNumber = query.page ?? 1;
  const url = threadKey(query.thread_url, 'querystring/thread_url').href;
  const thread = await findThread(db.kysely, site.id, url);
  const ids = thread ? await pageIdsOf(db.kysely, parts.pageIds, thread, query.sort ?? 'newest', pageNumber, query.limit ?? 20) : [];
  const body: Buffer[] = [LIST_START];
  const digests: string[] = [];
  const page: PublicPage = { subtrees: [] };
  let length = LIST_START.length;
  for (const subtree of await currentSubtrees(db.kysely, parts.subtrees, url, ids, serialize)) {
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
  return { response: { body: Buffer.concat(body, length + Buffer.byteLength(end)), etag: etagOf(`${digests.join(',')}${end}`) }, page };
}

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
 * show is at least that recent: a label is never newer than its content.
 */
async function currentSubtrees(db: Kysely<Database>, kept: RevisionCache<Subtree>, threadUrl: string, ids: string[], serialize: SerializeComment): Promise<Subtree[]> {
  const revisionOf = new Map((await subtreeRevisions(db, ids)).map((root) => [root.id, Number(root.subtree_revision)]));
  const found = ids.map((id) => (revisionOf.has(id) ? kept.get(id, revisionOf.get(id)!) : undefined));
  const missing = ids.filter((id, index) => found[index] === undefined && revisionOf.has(id));
  if (missing.length === 0) return found as Subtree[];
  const read = await readSubtrees(db, threadUrl, missing, serialize);
  for (const [id, subtree] of read) kept.set(id, revisionOf.get(id)!, subtree);
  return ids.map((id, index) => found[index] ?? read.get(id)).filter((subtree) => subtree !== undefined);
}

/** Reads and serialises these top-level comments with their visible replies (capped per comment as every list is). */
async function readSubtrees(db: Kysely<Database>, threadUrl: string, ids: string[], serialize: SerializeComment): Promise<Map<string, Subtree>> {
  const { roots, rows } = await readReplyTrees(db, PUBLIC_VIEWER, await readRoots(db, ids), threadUrl);
  const rowOf = new Map(rows.map((row) => [row.id, row]));
  return new Map(roots.map((root) => [root.id, serialised(root, rowOf, serialize)]));
}

/**
 * A subtree's bytes, and where each comment's marks stand in them: the serialiser writes comments in
 * pre-order, each one's marks before its replies, so the n-th occurrence of the public marks belongs
 * to the n-th comment of that walk. Text inside a comment cannot match: its quotes are escaped.
 */
function serialised(root: CommentView, rowOf: Map<string, ViewRow>, serialize: SerializeComment): Subtree {
  if (isEmptyPlaceholder(root)) return { body: Buffer.alloc(0), digest: '', comments: [] };
  const body = Buffer.from(serialize(root));
  const comments: ShownComment[] = [];
  let at = 0;
  const visit = (comment: CommentView): void => {
    at = body.indexOf(PUBLIC_MARKS, at);
    if (at < 0) throw new Error(`The serialised comment ${comment.id} has no public marks: its serialised form changed`);
    const row = rowOf.get(comment.id)!;
    comments.push({ ...markableRow(row), at, authorRef: row.author_ref });
    at += PUBLIC_MARKS.length;
    comment.replies.forEach(visit);
  };
  visit(root);
  return { body, digest: digestOf(body), comments };
}
