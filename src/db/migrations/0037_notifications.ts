import { sql, type Kysely } from 'kysely';

// Readers' notifications (src/notifications): the threads a reader follows, what they were told,
// and the fan-out jobs a change queues in its own transaction (one row, however many followers),
// which the notification worker turns into notifications after the commit, off the request path.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('follows')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('site_users.id'))
    .addColumn('thread_id', 'text', (c) => c.notNull().references('threads.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // A thread's followers in user order (the fan-out pages through them), and one follow per reader and thread.
  await db.schema.createIndex('follows_thread_user').on('follows').columns(['thread_id', 'user_id']).unique().execute();
  // A reader's follows, newest first (GET /v1/follows).
  await db.schema.createIndex('follows_user').on('follows').columns(['user_id', 'id']).execute();

  await db.schema
    .createTable('notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('site_users.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('comment_id', 'text', (c) => c.notNull().references('comments.id'))
    .addColumn('thread_id', 'text', (c) => c.notNull().references('threads.id'))
    // What made it, unique per reader: a job retried after a crash adds nothing twice.
    .addColumn('cause', 'text', (c) => c.notNull())
    // JSON: a moderation notice's `action` and `reason`.
    .addColumn('data', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('read_at', 'text')
    // When a mail told of it (at once, or in a digest); null: no mail has yet.
    .addColumn('mailed_at', 'text')
    .execute();
  await db.schema.createIndex('notifications_user_cause').on('notifications').columns(['user_id', 'cause']).unique().execute();
  // A reader's notifications newest first (ids are time-ordered), paged by id.
  await db.schema.createIndex('notifications_user').on('notifications').columns(['user_id', 'id']).execute();
  // The unread count, read with every widget load.
  await db.schema.createIndex('notifications_unread').on('notifications').columns(['user_id']).where(sql.ref('read_at'), 'is', null).execute();
  // Erasing a comment or a reader's data finds the notifications about it.
  await db.schema.createIndex('notifications_comment').on('notifications').columns(['comment_id']).execute();

  await db.schema
    .createTable('notification_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    // `published`: a comment the public now sees; `decision`: a moderator's decision on a reader's comment.
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('comment_id', 'text', (c) => c.notNull().references('comments.id'))
    .addColumn('data', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('state', 'text', (c) => c.notNull())
    // The last follower handled, so a fan-out cut short resumes where it stopped.
    .addColumn('cursor', 'text')
    .addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('lease_until', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('notification_jobs_due').on('notification_jobs').columns(['next_attempt_at']).where(sql.ref('state'), '=', 'pending').execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
