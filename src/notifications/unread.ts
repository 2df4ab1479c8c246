import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';

/** A reader of a site, as notifications name them. */
export interface SiteReader {
  siteId: string;
  userId: string;
}

/**
 * How many unread notifications each of these readers has, in one statement through the partial
 * unread index (a bell's count, read at every widget load and for every live announcement). Readers
 * with none are absent from the map. A user id belongs to one site, so filtering by both lists is
 * the same as by each pair.
 */
export async function unreadCounts(db: Kysely<Database>, readers: SiteReader[]): Promise<Map<string, number>> {
  if (readers.length === 0) return new Map();
  const rows = await db
    .selectFrom('notifications')
    .select(['user_id', (eb) => eb.fn.countAll<number | string>().as('unread')])
    .where('site_id', 'in', [...new Set(readers.map((reader) => reader.siteId))])
    .where('user_id', 'in', [...new Set(readers.map((reader) => reader.userId))])
    .where('read_at', 'is', null)
    .groupBy('user_id')
    .execute();
  return new Map(rows.map((row) => [row.user_id, Number(row.unread)]));
}

export async function unreadCount(db: Kysely<Database>, reader: SiteReader): Promise<number> {
  return (await unreadCounts(db, [reader])).get(reader.userId) ?? 0;
}
