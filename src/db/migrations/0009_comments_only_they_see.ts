import { sql, type Kysely } from 'kysely';
import { createTriggers } from '../dialect.ts';

/** A comment only its author sees: pending, or published while shadow-banned (as index 0005 holds). */
const onlyAuthorSees = (row: string) => `(${row}.status = 'pending' or (${row}.status = 'published' and ${row}.moderation_status is not null))`;

// site_users.comments_only_they_see counts a user's comments that only they see, kept by triggers
// and read with their session: a signed-in reader who has none anywhere on the site reads the
// public's list of a thread (with their marks) without asking whether they have one in that thread.
// Comments of guests and API keys name no site user: their triggers update nothing.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('site_users').addColumn('comments_only_they_see', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  const add = (row: 'new' | 'old', delta: string) => sql`update site_users set comments_only_they_see = comments_only_they_see + ${sql.raw(delta)} where id = ${sql.raw(`${row}.author_ref`)}`;
  await createTriggers(db, [
    { name: 'comments_only_they_see_added', when: `after insert on comments for each row when ${onlyAuthorSees('new')}`, body: add('new', '1') },
    {
      name: 'comments_only_they_see_moved',
      when: `after update of status, moderation_status on comments for each row when (${onlyAuthorSees('old')} <> ${onlyAuthorSees('new')})`,
      body: add('new', `(case when ${onlyAuthorSees('new')} then 1 else -1 end)`),
    },
    { name: 'comments_only_they_see_removed', when: `after delete on comments for each row when ${onlyAuthorSees('old')}`, body: add('old', '-1') },
  ]);
  // Counted after the triggers exist, in the migration's transaction: comments written meanwhile wait
  // for it (the triggers lock the table), and none is missed or counted twice.
  await sql`update site_users set comments_only_they_see = (
      select count(*) from comments where comments.author_ref = site_users.id and ${sql.raw(onlyAuthorSees('comments'))})
    where id in (select author_ref from comments where ${sql.raw(onlyAuthorSees('comments'))})`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
