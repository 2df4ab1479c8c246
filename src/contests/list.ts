import { sql } from 'kysely';
import type { Caller } from '../auth/caller.ts';
import type { Db } from '../db/connect.ts';
import { afterKey, decodeCursor, pageOf } from '../http/cursor.ts';
import { describeActors } from '../moderation/actors.ts';
import { managedSite, sitesManagedBy } from '../sites/repository.ts';

export interface ContestQuery {
  site_id?: string;
  state?: 'open' | 'resolved';
  cursor?: string;
  limit?: number;
}

/** Contests with their comment and the decision contested, as the staff see them. */
function contestRows(db: Db) {
  return db.kysely
    .selectFrom('decision_contests as d')
    .innerJoin('comments as c', 'c.id', 'd.comment_id')
    .innerJoin('threads as t', 't.id', 'c.thread_id')
    .leftJoin('moderation_log as l', 'l.id', 'd.decision_log_id')
    .select(['d.id', 'd.site_id', 'd.state', 'd.message', 'd.created_at', 'd.decision', 'd.outcome', 'd.note', 'd.resolved_by', 'd.resolved_at', 'd.comment_id', 'd.user_id'])
    .select(['c.author_name', 'c.content', 'c.is_deleted', 'c.status', 'c.created_at as comment_created_at', 't.url_key as thread_url', 't.title as thread_title'])
    .select(['l.reason as decision_reason', 'l.moderator_ref as decision_by', 'l.created_at as decided_at']);
}

type Row = Awaited<ReturnType<ReturnType<typeof contestRows>['execute']>>[number];

async function views(db: Db, rows: Row[]) {
  const refs = rows.flatMap((row) => [row.decision_by, row.resolved_by]).filter((ref): ref is string => ref !== null);
  const actor = await describeActors(db.kysely, refs);
  return rows.map((row) => ({
    id: row.id,
    site_id: row.site_id,
    state: row.state as 'open' | 'resolved',
    message: row.message,
    created_at: row.created_at,
    comment: {
      id: row.comment_id,
      thread_url: row.thread_url,
      thread_title: row.thread_title,
      author_name: row.author_name,
      author_id: row.user_id,
      content: row.is_deleted ? null : row.content,
      status: row.status,
      created_at: row.comment_created_at,
    },
    decision: {
      action: row.decision as 'removed' | 'spam' | 'held',
      reason: row.decision_reason ?? null,
      moderator: row.decision_by ? actor(row.decision_by) : null,
      decided_at: row.decided_at ?? null,
    },
    outcome: row.outcome as 'upheld' | 'reversed' | null,
    note: row.note,
    resolved_by: row.resolved_by === null ? null : actor(row.resolved_by),
    resolved_at: row.resolved_at,
  }));
}

export async function contestsByIds(db: Db, ids: string[]) {
  return views(db, await contestRows(db).where('d.id', 'in', ids).execute());
}

/**
 * The contests of one site (site_id) or every site the caller moderates: open ones oldest first (who
 * waited longest comes first), resolved ones latest resolved first; a cursor page at a time.
 */
export async function listContests(db: Db, caller: Caller, query: ContestQuery) {
  const sites = query.site_id !== undefined ? [await managedSite(db.kysely, caller, query.site_id, 'moderate')] : await sitesManagedBy(db.kysely, caller, 'moderate');
  const state = query.state ?? 'open';
  const limit = query.limit ?? 20;
  const order = `contests:${state}`;
  const [timeColumn, direction] = state === 'open' ? (['d.created_at', 'asc'] as const) : (['d.resolved_at', 'desc'] as const);
  const key = query.cursor !== undefined ? decodeCursor(query.cursor, order, ['string', 'string']) : undefined;
  if (sites.length === 0) return { contests: [], next_cursor: null };
  let select = contestRows(db)
    .where('d.site_id', 'in', sites.map((site) => site.id))
    .where('d.state', '=', state);
  if (key !== undefined) select = select.where(afterKey([timeColumn, 'd.id'], key, direction));
  const rows = await select.orderBy(sql.raw(`${timeColumn} ${direction}, d.id ${direction}`)).limit(limit + 1).execute();
  const { items, next_cursor } = pageOf(rows, limit, (row) => [(state === 'open' ? row.created_at : row.resolved_at)!, row.id], order);
  return { contests: await views(db, items), next_cursor };
}
