import type { Caller } from '../../auth/caller.ts';
import { toView, userVote, VIEW_SELECTION } from '../../comments/view.ts';
import { visibleTo } from '../../comments/visibility.ts';
import type { Db } from '../../db/connect.ts';
import { afterKey, decodeCursor, pageOf } from '../../http/cursor.ts';
import { readerOf } from './reader.ts';

const ORDER = 'mine-newest';

/**
 * The reader's comments on the site, newest first, a page after the cursor: each as threads show it
 * to them (published ones, and their pending ones; not deleted ones, nor ones a moderator removed),
 * with its thread's address and title, and their own vote and reaction on it.
 */
export async function myComments(db: Db, caller: Caller, query: { cursor?: string; limit?: number }) {
  const { site, user } = await readerOf(db, caller);
  const limit = query.limit ?? 20;
  let rows = db.kysely
    .selectFrom('comments as c')
    .innerJoin('comment_counts as n', 'n.comment_id', 'c.id')
    .innerJoin('threads as t', 't.id', 'c.thread_id')
    .leftJoin('votes as v', (join) => join.onRef('v.comment_id', '=', 'c.id').on('v.voter_ref', '=', user.id))
    .leftJoin('reactions as r', (join) => join.onRef('r.comment_id', '=', 'c.id').on('r.reactor_ref', '=', user.id))
    .select([...VIEW_SELECTION, 't.url_key', 't.title', 'v.value as vote', 'r.type as reaction'])
    .where('c.site_id', '=', site.id)
    .where('c.author_ref', '=', user.id)
    .where('c.is_deleted', '=', 0)
    .where(visibleTo({ ref: user.id, moderator: false }, 'c'));
  if (query.cursor !== undefined) rows = rows.where(afterKey(['c.created_at', 'c.id'], decodeCursor(query.cursor, ORDER, ['string', 'string']), 'desc'));
  const page = pageOf(await rows.orderBy('c.created_at', 'desc').orderBy('c.id', 'desc').limit(limit + 1).execute(), limit, (row) => [row.created_at, row.id], ORDER);
  return {
    comments: page.items.map((row) => ({
      ...toView(row, row.url_key),
      user_vote: userVote(row.vote ?? undefined),
      user_reaction: row.reaction,
      user_is_author: true,
      thread_title: row.title,
    })),
    next_cursor: page.next_cursor,
  };
}
