import { PublicCounts } from '../counts/counts.ts';
import type { ChangeFeed } from '../db/changes.ts';
import { PublicComments } from './public-comment.ts';
import { PublicLists } from './public-list.ts';
import { readerAnswerCache, type ReaderAnswer } from './reader-answer.ts';
import { readerMarksCache, type KnownMarks } from './reader-marks.ts';
import type { RevisionCache } from './revision-cache.ts';

/** Every cache of the comment reads, each built and cleared by the module that defines it. */
export interface CommentCaches {
  lists: PublicLists;
  comments: PublicComments;
  /** The public's comment counts per thread (GET /v1/counts). */
  counts: PublicCounts;
  /** Session readers' marks (reader-marks.ts) and last answers (reader-answer.ts). */
  readerMarks: RevisionCache<KnownMarks>;
  readerAnswers: RevisionCache<ReaderAnswer>;
}

const MB = 1024 * 1024;

/**
 * The caches in `responseMb` of memory for public responses (lists take 70 %, single comments 25 %,
 * counts 5 %: of the default 32 MB, some 2,000 threads' counts and 70 index pages' answers) and
 * `partsMb` for what answers are made of: lists' subtrees five eighths; their page ids, readers'
 * marks and readers' answers an eighth each. With 0 a cache keeps nothing: every entry is larger
 * than its budget.
 */
export function commentCaches(changes: ChangeFeed, responseMb: number, partsMb: number): CommentCaches {
  const responses = responseMb * MB;
  const parts = partsMb * MB;
  return {
    lists: new PublicLists(changes, { responseBytes: responses * 0.7, subtreeBytes: parts * 0.625, pageIdBytes: parts * 0.125 }),
    comments: new PublicComments(changes, responses * 0.25),
    counts: new PublicCounts(changes, responses * 0.05),
    readerMarks: readerMarksCache(parts * 0.125),
    readerAnswers: readerAnswerCache(parts * 0.125),
  };
}

/** The public responses served from the caches and built, since the start (lists and single comments). */
export function responseCacheCounts(caches: CommentCaches): { hits: number; misses: number } {
  const lists = caches.lists.responseCounts;
  const comments = caches.comments.responseCounts;
  return { hits: lists.hits + comments.hits, misses: lists.misses + comments.misses };
}
