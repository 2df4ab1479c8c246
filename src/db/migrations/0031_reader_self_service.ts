import { sql, type Kysely } from 'kysely';
import { createTriggers } from '../dialect.ts';

// A reader's own page (src/readers/me): claiming their guest comments moves a comment from no author
// to them, which the per-author counts (0013's author_counts, 0009's comments_only_they_see) must
// follow; the triggers of those migrations only follow a comment's status. Exporting a reader's
// votes, reactions and flags reads them by their author, and the erasure sweeper finds due accounts
// by erase_after: each gets an index (the votes' one is the only cost a write path meets).
const STATUSES = ['published', 'pending', 'removed', 'spam'] as const;
const is = (row: string, status: string) => `(case when ${row}.status = '${status}' then 1 else 0 end)`;
/** Pending, or published while shadow-banned, as 0009 counts them. */
const onlyAuthorSees = `(case when old.status = 'pending' or (old.status = 'published' and old.moderation_status is not null) then 1 else 0 end)`;

export async function up(db: Kysely<unknown>): Promise<void> {
  // Both move the comment as it was (old.status): a status changed by the same statement is then
  // moved on the new author by the status triggers, which follow new.author_ref.
  const reassigned = 'after update of author_ref on comments for each row when (old.author_ref is distinct from new.author_ref)';
  await createTriggers(db, [
    {
      name: 'comments_author_reassigned_counts',
      when: reassigned,
      body: sql.raw(
        `update author_counts set ${STATUSES.map((status) => `${status} = ${status} - ${is('old', status)}`).join(', ')}
           where site_id = old.site_id and author_ref = old.author_ref;
         insert into author_counts (site_id, author_ref, ${STATUSES.join(', ')})
           select new.site_id, new.author_ref, ${STATUSES.map((status) => is('old', status)).join(', ')} where new.author_ref is not null
           on conflict (site_id, author_ref) do update set ${STATUSES.map((status) => `${status} = author_counts.${status} + excluded.${status}`).join(', ')}`,
      ),
    },
    {
      name: 'comments_author_reassigned_only_they_see',
      when: reassigned,
      body: sql.raw(
        `update site_users set comments_only_they_see = comments_only_they_see - ${onlyAuthorSees} where id = old.author_ref;
         update site_users set comments_only_they_see = comments_only_they_see + ${onlyAuthorSees} where id = new.author_ref`,
      ),
    },
  ]);
  await db.schema.createIndex('votes_voter').on('votes').columns(['voter_ref', 'comment_id']).execute();
  await db.schema.createIndex('reactions_reactor').on('reactions').columns(['reactor_ref', 'comment_id']).execute();
  await db.schema.createIndex('flags_flagger').on('flags').columns(['flagger_ref', 'comment_id']).execute();
  await db.schema.createIndex('site_users_erase_due').on('site_users').column('erase_after').where(sql.ref('erase_after'), 'is not', null).execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
