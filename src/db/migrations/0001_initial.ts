import type { Kysely } from 'kysely';

// Types are chosen to mean the same on SQLite and PostgreSQL ("double precision" has REAL affinity
// in SQLite). Booleans are 0/1 integers and timestamps ISO-8601 text.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('sites')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('domains', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('moderation_mode', 'text', (c) => c.notNull().defaultTo('none'))
    .addColumn('allow_guests', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('reactions', 'text', (c) => c.notNull())
    .addColumn('webhook_url', 'text')
    .addColumn('webhook_secret', 'text')
    .addColumn('webhook_events', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sites_account').on('sites').columns(['account_id', 'created_at']).execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('site_ids', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();

  await db.schema
    .createTable('site_users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('external_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('avatar_url', 'text')
    .addColumn('first_comment_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('site_users_external', ['site_id', 'external_id'])
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('site_users.id'))
    .addColumn('moderator', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('threads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('url_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('threads_site_url', ['site_id', 'url_key'])
    .execute();

  await db.schema
    .createTable('comments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('thread_id', 'text', (c) => c.notNull().references('threads.id'))
    .addColumn('parent_id', 'text')
    .addColumn('root_id', 'text', (c) => c.notNull())
    .addColumn('author_ref', 'text')
    .addColumn('author_name', 'text', (c) => c.notNull())
    .addColumn('content', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('moderation_status', 'text')
    .addColumn('is_deleted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_edited', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('upvotes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('downvotes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('score', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('wilson', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('reaction_counts', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // One index per sort of the top-level list, so a page never scans the thread.
  for (const [name, order] of [
    ['comments_thread_newest', 'created_at'],
    ['comments_thread_top', 'score'],
    ['comments_thread_best', 'wilson'],
  ] as const) {
    await db.schema
      .createIndex(name)
      .on('comments')
      .columns(['thread_id', 'parent_id', order, 'id'])
      .execute();
  }
  await db.schema.createIndex('comments_root').on('comments').columns(['root_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('comments_parent').on('comments').columns(['parent_id', 'created_at']).execute();
  await db.schema.createIndex('comments_author').on('comments').columns(['site_id', 'author_ref']).execute();

  await db.schema
    .createTable('votes')
    .addColumn('comment_id', 'text', (c) => c.notNull().references('comments.id'))
    .addColumn('voter_ref', 'text', (c) => c.notNull())
    .addColumn('value', 'integer', (c) => c.notNull())
    .addColumn('by_moderator', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('votes_pk', ['comment_id', 'voter_ref'])
    .execute();

  await db.schema
    .createTable('reactions')
    .addColumn('comment_id', 'text', (c) => c.notNull().references('comments.id'))
    .addColumn('reactor_ref', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('reactions_pk', ['comment_id', 'reactor_ref'])
    .execute();

  await db.schema
    .createTable('flags')
    .addColumn('comment_id', 'text', (c) => c.notNull().references('comments.id'))
    .addColumn('flagger_ref', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('flags_pk', ['comment_id', 'flagger_ref'])
    .execute();

  await db.schema
    .createTable('bans')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('author_ref', 'text', (c) => c.notNull())
    .addColumn('ban_type', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('bans_site_author_type', ['site_id', 'author_ref', 'ban_type'])
    .execute();

  await db.schema
    .createTable('moderation_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('comment_id', 'text', (c) => c.notNull().references('comments.id'))
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('moderator_ref', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('moderation_log_site').on('moderation_log').columns(['site_id', 'created_at']).execute();

  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('site_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
