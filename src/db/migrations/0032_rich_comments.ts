import { sql, type Kysely } from 'kysely';
import { renderContent } from '../../formatting/html.ts';
import { createTriggers, dropTriggers } from '../dialect.ts';

// Rich comments (src/formatting): every comment keeps its rendered HTML, the users it mentions and
// its author's badges beside its source, so a list reads them as it reads the text; a pinned comment
// leads its thread's lists. What is shown changes with them, so 0007's trigger, which moves a
// subtree's revision when a shown column changes, is made again naming them, and pinning moves the
// thread's listing revision (a page's order). Sites made before keep what their readers had:
// plain text and no edit window; new sites get Markdown and 15 minutes.

/** The columns a list shows that a write can change (VIEW_COLUMNS in comments/view.ts). */
const SHOWN_COLUMNS =
  'content, content_html, mentions, author_badges, pinned_at, author_name, status, moderation_status, is_deleted, is_edited, upvotes, downvotes, reaction_counts';

const BATCH = 1000;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('comments').addColumn('content_html', 'text').execute();
  await db.schema.alterTable('comments').addColumn('mentions', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await db.schema.alterTable('comments').addColumn('author_badges', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await db.schema.alterTable('comments').addColumn('pinned_at', 'text').execute();
  await db.schema.createIndex('comments_pinned').on('comments').columns(['thread_id', 'pinned_at']).where(sql.ref('pinned_at'), 'is not', null).execute();

  await db.schema.alterTable('sites').addColumn('formatting', 'text', (c) => c.notNull().defaultTo('markdown')).execute();
  await db.schema.alterTable('sites').addColumn('edit_window_seconds', 'integer', (c) => c.defaultTo(900)).execute();
  await db.updateTable('sites').set({ formatting: 'plain', edit_window_seconds: null }).execute();

  await db.schema.alterTable('site_users').addColumn('labels', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await db.schema.alterTable('site_users').addColumn('mention_mail', 'integer', (c) => c.notNull().defaultTo(1)).execute();

  await db.schema
    .createTable('comment_revisions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('comment_id', 'text', (c) => c.notNull())
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('content_html', 'text', (c) => c.notNull())
    .addColumn('written_at', 'text', (c) => c.notNull())
    .addColumn('replaced_at', 'text', (c) => c.notNull())
    .addColumn('replaced_by', 'text')
    .execute();
  await db.schema.createIndex('comment_revisions_comment').on('comment_revisions').columns(['comment_id', 'replaced_at']).execute();

  await renderExisting(db);

  await dropTriggers(db, 'comments', ['comments_shown_column_set']);
  await createTriggers(db, [
    {
      name: 'comments_shown_column_set',
      when: `after update of ${SHOWN_COLUMNS} on comments for each row`,
      body: sql`update comments set subtree_revision = subtree_revision + 1 where id = new.root_id`,
    },
    {
      name: 'comments_pinned_set',
      when: 'after update of pinned_at on comments for each row when (new.parent_id is null)',
      body: sql`update threads set listing_revision = listing_revision + 1 where id = new.thread_id`,
    },
  ]);
}

/** The comments written before are plain text, as their sites were: rendered so, in batches, before the trigger that would count each. */
async function renderExisting(db: Kysely<any>): Promise<void> {
  let after = '';
  for (;;) {
    const rows: Array<{ id: string; content: string }> = await db
      .selectFrom('comments')
      .select(['id', 'content'])
      .where('id', '>', after)
      .where('content', 'is not', null)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    if (rows.length === 0) return;
    const rendered = sql.join(rows.map((row) => sql`(${row.id}, ${renderContent(row.content, 'plain')})`));
    // Both engines name a VALUES list's columns column1, column2.
    await sql`update comments set content_html = v.column2 from (values ${rendered}) as v where comments.id = v.column1`.execute(db);
    after = rows[rows.length - 1].id;
  }
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
