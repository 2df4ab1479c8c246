import type { SessionCaller } from '../auth/caller.ts';
import { etagOf } from '../http/etag.ts';
import { PUBLIC_MARKS } from './public-list.ts';
import type { CachedList, TaggedResponse } from './response-cache.ts';
import type { RevisionCache } from './revision-cache.ts';
import { userVote, type ViewerMarks } from './view.ts';

/**
 * A reader's list as bytes: the public page's bytes with the reader's votes, reactions and
 * authorship written over the public's marks, so neither the page is copied nor anything serialised
 * again. A reader with no marks on the page gets the public's answer itself. The entity tag is
 * derived from the public one and the marks written, which together decide every byte.
 */
export function withReaderMarks(shown: CachedList, marks: ViewerMarks | null): TaggedResponse {
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

/** A session reader's last list of one URL: the public page it was made of (by entity tag) and the response. */
export interface ReaderList {
  publicEtag: string;
  response: TaggedResponse;
  /** The response has bytes of its own (a copy with the reader's marks), not the public's. */
  copied: boolean;
}

/**
 * A session reader's list, kept by URL at their marks revision: while neither the public page (its
 * entity tag names its bytes) nor their marks move, a reread, such as a widget polling, is the kept
 * response, with no copy made and no entity tag computed.
 */
export function sessionReaderList(kept: RevisionCache<ReaderList>, reader: SessionCaller, url: string, shown: CachedList, marks: ViewerMarks | null): TaggedResponse {
  const key = `${reader.userId}\n${url}`;
  const last = kept.get(key, reader.marksRevision);
  if (last?.publicEtag === shown.etag) return last.response;
  const response = withReaderMarks(shown, marks);
  kept.set(key, reader.marksRevision, { publicEtag: shown.etag, response, copied: response.body !== shown.body });
  return response;
}
