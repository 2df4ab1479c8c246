import type { PublicCaller } from '../auth/caller.ts';
import type { ChangeFeed } from '../db/changes.ts';
import type { Db } from '../db/connect.ts';
import { ResponseCache, taggedResponse, type CachedResponse } from './response-cache.ts';
import { getComment } from './service.ts';
import type { CommentView } from './view.ts';

/**
 * The public's answers of GET /v1/comments/:id: where they are read, kept and cleared. Kept by URL
 * until a write to their thread is announced (response-cache.ts).
 */
export class PublicComments {
  readonly #responses: ResponseCache<null>;

  constructor(changes: ChangeFeed, responseBytes: number) {
    this.#responses = new ResponseCache(changes, responseBytes, 1);
  }

  read(db: Db, url: string, caller: PublicCaller, id: string, serialize: (comment: CommentView) => string): Promise<CachedResponse<null>> {
    return this.#responses.read(url, async () => {
      const comment = await getComment(db, caller, id);
      return { siteId: comment.site_id, threadKey: comment.thread_url, response: taggedResponse(Buffer.from(serialize(comment))), page: null };
    });
  }
}
