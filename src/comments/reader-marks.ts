import type { Kysely } from 'kysely';
import type { Caller } from '../auth/caller.ts';
import type { Database } from '../db/schema.ts';
import { marksOf, type Markable } from './repository.ts';
import { RevisionCache } from './revision-cache.ts';
import type { ViewerMarks } from './view.ts';
import type { Viewer } from './visibility.ts';

/**
 * What is known of one reader's votes and reactions at one of their marks revisions: their marks on
 * every comment looked up so far (a comment looked up and absent from `votes` has no vote of theirs).
 */
export interface KnownMarks {
  votes: Map<string, number>;
  reactions: Map<string, string>;
  votesLookedUp: Set<string>;
  reactionsLookedUp: Set<string>;
}

/** Heap per looked-up comment (measured: about 77 bytes), rounded up. */
const BYTES_PER_ID = 100;

/** Session readers' known marks, in `bytes` of memory. */
export function readerMarksCache(bytes: number): RevisionCache<KnownMarks> {
  return new RevisionCache(bytes, (known) => BYTES_PER_ID * (known.votesLookedUp.size + known.reactionsLookedUp.size + 1));
}

/** A reader's marks on the comments of a public answer: a session reader's through what is known of them, an API key's looked up. */
export function marksOfReader(db: Kysely<Database>, kept: RevisionCache<KnownMarks>, reader: Caller, viewer: Viewer, comments: Markable[]): Promise<ViewerMarks> {
  return reader.kind === 'session' ? readerMarksOf(db, kept, reader, viewer, comments) : marksOf(db, viewer, comments);
}

/**
 * A session reader's marks on a page's comments. Their marks revision (read with their session)
 * moves with every vote and reaction of theirs, by trigger (migration 0008); while it stands, what
 * was looked up before is still true, including that they have not marked a comment. So only
 * comments not looked up at this revision are asked for: a reader rereading a page, or paging on,
 * costs no lookup of their marks, or one of the new comments. Exact on every instance, as the list's
 * other kept parts are.
 */
async function readerMarksOf(
  db: Kysely<Database>,
  kept: RevisionCache<KnownMarks>,
  reader: { userId: string; marksRevision: number },
  viewer: Viewer,
  comments: Markable[],
): Promise<ViewerMarks> {
  const known = kept.get(reader.userId, reader.marksRevision) ?? { votes: new Map(), reactions: new Map(), votesLookedUp: new Set(), reactionsLookedUp: new Set() };
  // A plain loop: on a reread, every comment is known and nothing is allocated.
  const unknown: Markable[] = [];
  for (const { id, voted, reacted } of comments) {
    const vote = voted && !known.votesLookedUp.has(id);
    const reaction = reacted && !known.reactionsLookedUp.has(id);
    if (vote || reaction) unknown.push({ id, voted: vote, reacted: reaction });
  }
  if (unknown.length > 0) {
    const found = await marksOf(db, viewer, unknown);
    for (const { id, voted, reacted } of unknown) {
      if (voted) known.votesLookedUp.add(id);
      if (reacted) known.reactionsLookedUp.add(id);
    }
    for (const [id, value] of found.votes) known.votes.set(id, value);
    for (const [id, type] of found.reactions) known.reactions.set(id, type);
    // Kept again: its size is counted anew, and marks that outgrew the budget are dropped.
    kept.set(reader.userId, reader.marksRevision, known);
  }
  return { viewerRef: viewer.ref, votes: known.votes, reactions: known.reactions };
}
