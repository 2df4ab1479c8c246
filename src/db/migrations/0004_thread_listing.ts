import { sql, type Kysely } from 'kysely';

// Which top-level comments a list shows, kept on the rows and counted per thread, so a page and its
// `total` never scan a thread: `listed_public` (what the public sees) and `listed_all` (what
// moderators see), maintained by every write that can change them (src/comments/listing.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('threads').addColumn('public_total', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('threads').addColumn('all_total', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('comments').addColumn('listed_public', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('comments').addColumn('listed_all', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  const liveReply = (publicOnly: boolean) => sql`exists (select 1 from comments d where d.root_id = comments.id and d.id <> comments.id
    and d.is_deleted = 0 ${publicOnly ? sql`and d.status = 'published' and d.moderation_status is null` : sql``})`;
  await sql`update comments set
      listed_all = case when is_deleted = 0 or ${liveReply(false)} then 1 else 0 end,
      listed_public = case when status = 'published' and moderation_status is null and (is_deleted = 0 or ${liveReply(true)}) then 1 else 0 end
    where parent_id is null`.execute(db);
  await sql`update threads set
      public_total = (select count(*) from comments c where c.thread_id = threads.id and c.parent_id is null and c.listed_public = 1),
      all_total = (select count(*) from comments c where c.thread_id = threads.id and c.parent_id is null and c.listed_all = 1)`.execute(db);
  // The public's default order, so even a deep page skips through the index alone.
  await db.schema
    .createIndex('comments_thread_public')
    .on('comments')
    .columns(['thread_id', 'listed_public', 'created_at', 'id'])
    .where(sql.ref('parent_id'), 'is', null)
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
