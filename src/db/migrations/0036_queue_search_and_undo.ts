import { sql, type Kysely } from 'kysely';
import { dialectOfDb } from '../dialect.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The queue's search by the start of a display name (GET /api/comments?author=): a range of
  // lower(author_name) within a site (lowerNameWithin in src/db/dialect.ts writes the same expression).
  const folded = dialectOfDb(db) === 'postgres' ? sql`lower(author_name) collate "C"` : sql`lower(author_name)`;
  await sql`create index comments_author_name on comments (site_id, ${folded})`.execute(db);
  // What undoing a moderation action restores (src/moderation/undo.ts): JSON, null for an action that cannot be undone.
  await db.schema.alterTable('moderation_log').addColumn('undo', 'text').execute();
  // A comment's latest action (which an undo looks up), and whether a moderator answered the classifier's hold.
  await db.schema.createIndex('moderation_log_comment').on('moderation_log').columns(['comment_id', 'created_at']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
