import { etagOf } from '../http/etag.ts';
import { PUBLIC_MARKS } from './public-list.ts';
import type { CachedList, TaggedResponse } from './response-cache.ts';
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
