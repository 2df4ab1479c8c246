import { etagOf } from '../http/etag.ts';
import type { CachedList, TaggedResponse } from './response-cache.ts';
import { userVote, type CommentView, type ViewerMarks } from './view.ts';

/** The public's marks as the serialiser writes them, once in every comment of a public page. */
const PUBLIC_MARKS = '"user_vote":null,"user_reaction":null,"user_is_author":false';

const slotsByPage = new WeakMap<CachedList, Map<string, number>>();

/**
 * Where each comment's marks stand in the public page's bytes. The serialiser writes comments in
 * pre-order, each one's marks before its replies, so the n-th occurrence of the public marks belongs
 * to the n-th comment of that walk. Text inside a comment cannot match: its quotes are escaped.
 */
function markSlots(shown: CachedList): Map<string, number> {
  let slots = slotsByPage.get(shown);
  if (slots) return slots;
  const found = new Map<string, number>();
  let at = 0;
  const visit = (comment: CommentView): void => {
    at = shown.body.indexOf(PUBLIC_MARKS, at);
    if (at < 0) throw new Error(`The public page has no marks for comment ${comment.id}: its serialised form changed`);
    found.set(comment.id, at);
    at += PUBLIC_MARKS.length;
    comment.replies.forEach(visit);
  };
  shown.page.list.comments.forEach(visit);
  slotsByPage.set(shown, (slots = found));
  return slots;
}

/**
 * A reader's list as bytes: the public page's bytes with the reader's votes, reactions and
 * authorship written over the public's marks, so neither the page is copied nor anything serialised
 * again. A reader with no marks on the page gets the public's answer itself. The entity tag is
 * derived from the public one and the marks written, which together decide every byte.
 */
export function withReaderMarks(shown: CachedList, marks: ViewerMarks | null): TaggedResponse {
  if (marks === null) return shown;
  const { authorOf } = shown.page;
  const parts: Buffer[] = [];
  const written: string[] = [];
  let copiedTo = 0;
  for (const [id, at] of markSlots(shown)) {
    const vote = userVote(marks.votes.get(id));
    const reaction = marks.reactions.get(id) ?? null;
    const isAuthor = authorOf.get(id) === marks.viewerRef;
    if (vote === null && reaction === null && !isAuthor) continue;
    const own = `"user_vote":${JSON.stringify(vote)},"user_reaction":${JSON.stringify(reaction)},"user_is_author":${isAuthor}`;
    parts.push(shown.body.subarray(copiedTo, at), Buffer.from(own));
    written.push(`${at}:${own}`);
    copiedTo = at + PUBLIC_MARKS.length;
  }
  if (parts.length === 0) return shown;
  parts.push(shown.body.subarray(copiedTo));
  return { body: Buffer.concat(parts), etag: etagOf(Buffer.from(`${shown.etag}\n${written.join('\n')}`)) };
}
