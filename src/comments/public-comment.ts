import type { ChangeFeed } from '../db/changes.ts';
import type { Db } from '../db/connect.ts';
import { AppError } from '../errors.ts';
import { SHARED_SIZE_PER_BODY_BYTE, shownComments, type PlacedPage, type SharedAnswer } from './public-bytes.ts';
import { isVisible } from './repository.ts';
import { ResponseCache, taggedResponse, type BuiltResponse } from './response-cache.ts';
import { commentWithSite } from './service.ts';
import { readCommentPage, type CommentPage, type SubtreeQuery } from './subtree-page.ts';
import { PUBLIC_VIEWER } from './visibility.ts';

export type SerializeCommentPage = (page: CommentPage) => string;

/**
 * The public's answers of GET /v1/comments/:id: where they are read, kept and cleared. Kept by URL
 * until a write to their thread is announced (response-cache.ts), with where each comment's marks
 * stand in their bytes, so that readers' answers are made of them as their lists are (reader-answer.ts).
 */
export class PublicComments {
  readonly #responses: ResponseCache<PlacedPage>;

  constructor(changes: ChangeFeed, responseBytes: number) {
    this.#responses = new ResponseCache(changes, responseBytes, SHARED_SIZE_PER_BODY_BYTE);
  }

  /** Kept answers served and answers built, since the start. */
  get responseCounts(): { hits: number; misses: number } {
    return { hits: this.#responses.hits, misses: this.#responses.misses };
  }

  /** The public's answer at `url`: comment `id` with the part of its subtree `query` asks for. */
  at(db: Db, url: string, id: string, query: SubtreeQuery, serialize: SerializeCommentPage): SharedAnswer<PlacedPage> {
    return {
      kept: () => this.#responses.get(url),
      read: () => this.#responses.read(url, () => readPublicAnswer(db, id, query, serialize)),
    };
  }
}

/** Read after the cache's clock is taken, the comment included: a write meanwhile keeps the answer out of the cache. */
async function readPublicAnswer(db: Db, id: string, query: SubtreeQuery, serialize: SerializeCommentPage): Promise<BuiltResponse<PlacedPage>> {
  const { comment, site } = await commentWithSite(db, id);
  if (!(await isVisible(db.kysely, PUBLIC_VIEWER, id))) throw new AppError('not_found', `No comment ${id}`);
  const { page, rows } = await readCommentPage(db.kysely, PUBLIC_VIEWER, comment, query);
  const body = Buffer.from(serialize(page));
  const comments = shownComments(body, page, new Map(rows.map((row) => [row.id, row])));
  return {
    siteId: site.id,
    threadKey: comment.thread_url,
    response: taggedResponse(body),
    page: { site: { id: site.id, accountId: site.accountId }, threadUrl: comment.thread_url, subtrees: [{ offset: 0, comments }] },
  };
}
