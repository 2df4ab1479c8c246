import type { SiteOwnership } from '../auth/caller.ts';
import { etagOf } from '../http/etag.ts';
import type { Markable } from './repository.ts';
import type { CachedResponse, TaggedResponse } from './response-cache.ts';
import { markableRow, userVote, type CommentView, type ViewerMarks, type ViewRow } from './view.ts';

/** The public's marks as the serialiser writes them, once in every comment. */
export const PUBLIC_MARKS = '"user_vote":null,"user_reaction":null,"user_is_author":false';

/** A comment of a serialised answer: where its marks stand, who wrote it, what a reader may have marked. */
export interface ShownComment extends Markable {
  /** Byte offset of its public marks in its subtree's bytes. */
  at: number;
  authorRef: string | null;
}

/**
 * What a public answer's bytes hold: its subtrees (top-level comments with their replies) in the
 * order of the bytes, each with the offset of its bytes in the answer's.
 */
export interface SharedPage {
  subtrees: Array<{ offset: number; comments: ShownComment[] }>;
}

/**
 * A kept public answer's memory per byte of its body: the body itself, and where each of its
 * comments stands (measured: about 220 bytes of heap per comment, against about 710 bytes of JSON
 * per comment in the benchmark's pages), rounded up.
 */
export const SHARED_SIZE_PER_BODY_BYTE = 1.5;

/** A public answer about one comment: its page, and the site and thread it is of (which decide how a reader reads it). */
export interface PlacedPage extends SharedPage {
  site: SiteOwnership;
  threadUrl: string;
}

/** The public's answer at one URL: the kept one (if it is kept), or one read, and kept, now. */
export interface SharedAnswer<Page> {
  kept(): CachedResponse<Page> | undefined;
  read(): Promise<CachedResponse<Page>>;
}

/**
 * The comments of a serialised subtree and where each one's marks stand in `body`: the serialiser
 * writes comments in pre-order, each one's marks before its replies, so the n-th occurrence of the
 * public marks belongs to the n-th comment of that walk. Text inside a comment cannot match: its
 * quotes are escaped.
 */
export function shownComments(body: Buffer, root: CommentView, rowOf: Map<string, ViewRow>): ShownComment[] {
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
  return comments;
}

/**
 * A reader's answer as bytes: the public answer's bytes with the reader's votes, reactions and
 * authorship written over the public's marks, so neither the answer is copied nor anything
 * serialised again. A reader with no marks on it gets the public's answer itself. The entity tag is
 * derived from the public one and the marks written, which together decide every byte.
 */
export function withReaderMarks(shown: CachedResponse<SharedPage>, marks: ViewerMarks | null): TaggedResponse {
  if (marks === null) return shown;
  const parts: Buffer[] = [];
  const written: string[] = [];
  let copiedTo = 0;
  for (const { offset, comments } of shown.page.subtrees) {
    for (const { id, at, authorRef } of comments) {
      const vote = userVote(marks.votes.get(id));
      const reaction = marks.reactions.get(id) ?? null;
      const isAuthor = authorRef === marks.viewerRef;
      if (vote === null && reaction === null && !isAuthor) continue;
      const own = `"user_vote":${JSON.stringify(vote)},"user_reaction":${JSON.stringify(reaction)},"user_is_author":${isAuthor}`;
      parts.push(shown.body.subarray(copiedTo, offset + at), Buffer.from(own));
      written.push(`${offset + at}:${own}`);
      copiedTo = offset + at + PUBLIC_MARKS.length;
    }
  }
  if (parts.length === 0) return shown;
  parts.push(shown.body.subarray(copiedTo));
  return { body: Buffer.concat(parts), etag: etagOf(`${shown.etag}\n${written.join('\n')}`) };
}

/** All the comments a public answer shows, for looking a reader's marks on them up. */
export function commentsOf(page: SharedPage): ShownComment[] {
  return page.subtrees.flatMap((subtree) => subtree.comments);
}
