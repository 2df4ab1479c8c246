import type { Kysely } from 'kysely';
import type { Db } from '../db/connect.ts';
import { digestOf, etagOf } from '../http/etag.ts';
import type { Database } from '../db/schema.ts';
import { findThread, LIST_REPLY_CAP, listPublicRoots, listReplies, readRoots, type PageRoot } from './repository.ts';
import { siteOrNotFound } from '../sites/repository.ts';
import type { ListQuery } from './service.ts';
import type { TaggedResponse } from './response-cache.ts';
import type { ShownComment, Subtree, SubtreeCache } from './subtree-cache.ts';
import { threadKey } from './thread-url.ts';
import { capPerRoot, isEmptyPlaceholder, nestReplies } from './tree.ts';
import { markableRow, toView, type CommentView, type ViewRow } from './view.ts';
import { PUBLIC_VIEWER } from './visibility.ts';

/** The public's marks as the serialiser writes them, once in every comment. */
export const PUBLIC_MARKS = '"user_vote":null,"user_reaction":null,"user_is_author":false';

/** A public list's subtrees in the order of its bytes, each with the offset of its bytes in the list's. */
export interface PublicPage {
  subtrees: Array<{ offset: number; comments: ShownComment[] }>;
}

/** Every comment of a public page (in the order of its bytes). */
export function commentsOf(page: PublicPage): ShownComment[] {
  return page.subtrees.flatMap((subtree) => subtree.comments);
}

export type SerializeComment = (comment: CommentView) => string;

const LIST_START = Buffer.from('{"comments":[');
const COMMA = Buffer.from(',');

/**
 * The public's list of a thread as bytes, in the form the list's response schema gives it
 * (`{"comments":[…],"total":…,"page":…}`). The page's top-level comments and their subtree
 * revisions are one index-ordered query; each top-level comment with its replies is taken serialised
 * from `subtrees` while its revision is current, and only the others are read and serialised. The
 * entity tag is derived from the subtrees' digests and the rest of the bytes, which decide them all.
 */
export async function readPublicList(
  db: Db,
  subtrees: SubtreeCache,
  query: ListQuery,
  serialize: SerializeComment,
): Promise<{ response: TaggedResponse; page: PublicPage }> {
  const site = await siteOrNotFound(db.kysely, query.site_id);
  const pageNumber = query.page ?? 1;
  const url = threadKey(query.thread_url, 'querystring/thread_url').href;
  const thread = await findThread(db.kysely, site.id, url);
  const roots = thread ? await listPublicRoots(db.kysely, thread, query.sort ?? 'newest', pageNumber, query.limit ?? 20) : [];
  const parts: Buffer[] = [LIST_START];
  const digests: string[] = [];
  const page: PublicPage = { subtrees: [] };
  let length = LIST_START.length;
  for (const subtree of await currentSubtrees(db.kysely, subtrees, url, roots, serialize)) {
    if (subtree.body.length === 0) continue;
    if (digests.length > 0) {
      parts.push(COMMA);
      length += COMMA.length;
    }
    page.subtrees.push({ offset: length, comments: subtree.comments });
    parts.push(subtree.body);
    digests.push(subtree.digest);
    length += subtree.body.length;
  }
  const end = `],"total":${Number(thread?.public_total ?? 0)},"page":${pageNumber}}`;
  parts.push(Buffer.from(end));
  return { response: { body: Buffer.concat(parts, length + Buffer.byteLength(end)), etag: etagOf(`${digests.join(',')}${end}`) }, page };
}

/** The page's subtrees in its order: kept ones whose revision is current, the rest read now. */
async function currentSubtrees(
  db: Kysely<Database>,
  subtrees: SubtreeCache,
  threadUrl: string,
  roots: PageRoot[],
  serialize: SerializeComment,
): Promise<Subtree[]> {
  const kept = roots.map((root) => subtrees.get(root.id, Number(root.subtree_revision)));
  const missing = roots.filter((_, index) => kept[index] === undefined).map((root) => root.id);
  if (missing.length === 0) return kept as Subtree[];
  const read = await readSubtrees(db, threadUrl, missing, serialize);
  for (const [id, subtree] of read) subtrees.set(id, subtree);
  return roots.map((root, index) => kept[index] ?? read.get(root.id)).filter((subtree) => subtree !== undefined);
}

/**
 * Reads and serialises these top-level comments with their visible replies (capped per comment as
 * every list is). Each subtree is labelled with the revision read with its top-level row, before its
 * replies: whatever the replies show is at least that recent, so a label is never newer than its
 * content.
 */
async function readSubtrees(db: Kysely<Database>, threadUrl: string, ids: string[], serialize: SerializeComment): Promise<Map<string, Subtree>> {
  const rows = await readRoots(db, ids);
  const replies = await listReplies(db, PUBLIC_VIEWER, ids, LIST_REPLY_CAP);
  const { kept, cut } = capPerRoot(replies, LIST_REPLY_CAP);
  const rowOf = new Map<string, ViewRow>([...rows, ...kept].map((row) => [row.id, row]));
  const view = (row: ViewRow) => toView(row, threadUrl);
  const roots = rows.map(view);
  nestReplies(roots, kept, view, cut);
  return new Map(roots.map((root, index) => [root.id, serialised(root, Number(rows[index].subtree_revision), rowOf, serialize)]));
}

/**
 * A subtree's bytes, and where each comment's marks stand in them: the serialiser writes comments in
 * pre-order, each one's marks before its replies, so the n-th occurrence of the public marks belongs
 * to the n-th comment of that walk. Text inside a comment cannot match: its quotes are escaped.
 */
function serialised(root: CommentView, revision: number, rowOf: Map<string, ViewRow>, serialize: SerializeComment): Subtree {
  if (isEmptyPlaceholder(root)) return { revision, body: Buffer.alloc(0), digest: '', comments: [] };
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
  return { revision, body, digest: digestOf(body), comments };
}
