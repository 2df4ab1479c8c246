import { sql, type Kysely } from 'kysely';
import { createTriggers } from '../dialect.ts';

// The queue's tab counts (src/moderation/counts.ts) kept per thread by triggers, as author_counts
// are (0013). Counted from the partial indexes, a count read every comment of its tab: after the
// benchmark's comment flood, which the spam checks' velocity limit holds, each request of the
// seeded site walked ten to twenty-five thousand pending entries. Kept per thread, not per site: on
// PostgreSQL a counter row stays locked until its transaction commits, and a new top-level comment
// already locks its thread's row (its totals), while a per-site row would make every held comment
// of a site wait for the one before it. A thread's row goes once nothing of it is in a tab, so a
// site's counts read one row per thread with comments in its queue.
const TABS = ['pending', 'flagged', 'spam', 'removed'] as const;

/** `1` when the row (`new`, `old` or a table's alias) is in that tab, as the queue's status filters (moderation/queue.ts) say, else `0`. */
function inTab(row: string, tab: (typeof TABS)[number]): string {
  const shown = tab === 'flagged' ? `${row}.flag_count > 0 and ${row}.status = 'published'` : `${row}.status = '${tab}'`;
  return `(case when ${shown} and ${row}.is_deleted = 0 then 1 else 0 end)`;
}
/** Whether the row is in any tab: the triggers' conditions, so a published comment without flags costs them nothing. */
const queued = (row: string) => `(${row}.is_deleted = 0 and (${row}.status <> 'published' or ${row}.flag_count > 0))`;
const thread = (row: 'new' | 'old') => `site_id = ${row}.site_id and thread_id = ${row}.thread_id`;
/** Adds `change(tab)` to each tab of the row's thread, creating its row. */
const added = (row: 'new' | 'old', change: (tab: (typeof TABS)[number]) => string) =>
  `insert into thread_queue_counts (site_id, thread_id, ${TABS.join(', ')}) values (${row}.site_id, ${row}.thread_id, ${TABS.map(change).join(', ')})
     on conflict (site_id, thread_id) do update set ${TABS.map((tab) => `${tab} = thread_queue_counts.${tab} + excluded.${tab}`).join(', ')}`;
const emptied = (row: 'new' | 'old') => `delete from thread_queue_counts where ${thread(row)} and ${TABS.map((tab) => `${tab} = 0`).join(' and ')}`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('thread_queue_counts')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('thread_id', 'text', (c) => c.notNull())
    .addColumn('pending', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('flagged', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('spam', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('removed', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('thread_queue_counts_pk', ['site_id', 'thread_id'])
    .execute();
  // Comments never change thread or site, so the columns that move a comment between tabs are these three.
  await createTriggers(db, [
    {
      name: 'comments_queue_counted',
      when: `after insert on comments for each row when ${queued('new')}`,
      body: sql.raw(added('new', (tab) => inTab('new', tab))),
    },
    {
      name: 'comments_queue_count_moved',
      when: `after update of status, is_deleted, flag_count on comments for each row
        when (${TABS.map((tab) => `${inTab('old', tab)} <> ${inTab('new', tab)}`).join(' or ')})`,
      body: sql.raw(`${added('new', (tab) => `${inTab('new', tab)} - ${inTab('old', tab)}`)}; ${emptied('new')}`),
    },
    {
      name: 'comments_queue_uncounted',
      when: `after delete on comments for each row when ${queued('old')}`,
      body: sql.raw(`update thread_queue_counts set ${TABS.map((tab) => `${tab} = ${tab} - ${inTab('old', tab)}`).join(', ')} where ${thread('old')}; ${emptied('old')}`),
    },
  ]);
  // Counted after the triggers exist: on PostgreSQL creating them waits for the writes under way and
  // holds off new ones until the migration commits, so no comment is counted twice or missed.
  await countQueuedComments(db);
}

/**
 * Every thread's counts, from its comments as they are: what the triggers keep from then on. Also
 * for comments written with the triggers off (scripts/explain.ts seeds a million that way).
 */
export async function countQueuedComments<DB>(db: Kysely<DB>): Promise<void> {
  await sql`insert into thread_queue_counts (site_id, thread_id, ${sql.raw(TABS.join(', '))})
    select c.site_id, c.thread_id, ${sql.raw(TABS.map((tab) => `sum(${inTab('c', tab)})`).join(', '))}
    from comments c where ${sql.raw(queued('c'))} group by c.site_id, c.thread_id`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
