import { sql, type Kysely } from 'kysely';

/**
 * What the public sees of a comment's own row (src/comments/visibility.ts), and not deleted: what
 * recent comments and feeds list, as SQL over the columns of `alias` (none: the table's own).
 */
export function shownAndLive(alias?: string): string {
  const column = (name: string) => (alias ? `${alias}.${name}` : name);
  return `${column('status')} = 'published' and ${column('moderation_status')} is null and ${column('is_deleted')} = 0`;
}

// A site's and a thread's newest comments the public sees (GET /v1/comments/recent, the Atom feeds):
// a range of a partial index read newest first, which holds those rows alone, so a page of them
// costs the same whatever the site's size or how much of it is hidden. Their queries name the
// index's condition as written here (PostgreSQL uses a partial index only for a query that implies it).
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, scope] of [
    ['comments_site_recent', 'site_id'],
    ['comments_thread_recent', 'thread_id'],
  ] as const) {
    await db.schema.createIndex(name).on('comments').columns([scope, 'created_at', 'id']).where(sql.raw<boolean>(shownAndLive())).execute();
  }
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
