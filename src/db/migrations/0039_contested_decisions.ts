import { sql, type Kysely } from 'kysely';

// Contested decisions (src/contests): a reader asks the moderators to look again at a decision on
// their comment (removed, marked spam or held), and a moderator reinstates the comment or upholds the
// decision. Sites gain a contact (an address or page) the widget shows readers with a decision.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sites').addColumn('contact', 'text').execute();

  await db.schema
    .createTable('decision_contests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('comment_id', 'text', (c) => c.notNull().references('comments.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('site_users.id'))
    .addColumn('message', 'text', (c) => c.notNull())
    // What was contested: `removed`, `spam` or `held`, and the log entry that decided it (null for a
    // comment held on arrival by the site's rules, which no one logged).
    .addColumn('decision', 'text', (c) => c.notNull())
    .addColumn('decision_log_id', 'text')
    // `open`, then `resolved` with an outcome (`upheld` or `reversed`), the moderator's note, who and when.
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text')
    .addColumn('note', 'text')
    .addColumn('resolved_by', 'text')
    .addColumn('resolved_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // One open contest per comment, also when two arrive at once.
  await db.schema.createIndex('decision_contests_open').on('decision_contests').column('comment_id').unique().where(sql.ref('state'), '=', 'open').execute();
  // The dashboard's lists: a site's open (oldest first) or resolved contests.
  await db.schema.createIndex('decision_contests_site').on('decision_contests').columns(['site_id', 'state', 'created_at', 'id']).execute();
  // A comment's earlier contests (an upheld decision is not contested twice), and a reader's (erasure).
  await db.schema.createIndex('decision_contests_comment').on('decision_contests').column('comment_id').execute();
  await db.schema.createIndex('decision_contests_user').on('decision_contests').column('user_id').execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
