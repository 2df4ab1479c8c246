import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { dialectName, freshDatabaseUrl, pageUrl, startParley, type FreshDatabase } from '../../test/helper.ts';
import { loadConfig } from '../config.ts';
import { connect, type Db } from './connect.ts';
import { createTriggers, dropTriggers } from './dialect.ts';
import { migrateToLatest } from './migrate.ts';
import type { Database } from './schema.ts';

const run = promisify(execFile);
const ALL_MIGRATIONS = ['0001_initial', '0002_webhook_deliveries', '0003_top_level_indexes', '0004_thread_listing', '0005_comments_only_author_sees', '0006_webhook_site_due', '0007_list_revisions', '0008_marks_revision', '0009_comments_only_they_see', '0010_vote_order_listing', '0011_session_keys', '0012_staff', '0013_management', '0014_live_and_sso', '0015_import_sources', '0016_mail', '0017_spam_defence', '0018_import_jobs', '0020_queue_events_and_live_counts', '0021_erased_users', '0022_spam_signals_ip_partial', '0023_spam_signals_lean', '0024_queue_counts', '0025_mail_outbox_site', '0026_spam_signals_by_time', '0027_live_events_ids_only', '0028_mail_subscription_confirmation', '0029_staff_email_verified', '0030_reader_accounts', '0031_reader_self_service', '0032_rich_comments', '0033_languages', '0034_recent_comments', '0035_spam_classifier', '0036_queue_search_and_undo', '0037_notifications', '0038_chat_alerts', '0039_contested_decisions', '0040_mail_digests', '0041_comment_counts', '0042_recent_by_time'];

let database: FreshDatabase | undefined;
const opened: Db[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.close()));
  await database?.drop();
  database = undefined;
});

function open(url: string): Db {
  const db = connect(loadConfig({ DATABASE_URL: url }));
  opened.push(db);
  return db;
}

async function appliedNames(db: Db): Promise<string[]> {
  const rows = await db.kysely.selectFrom('kysely_migration' as never).select('name' as never).orderBy('name' as never).execute();
  return rows.map((row) => (row as { name: string }).name);
}

/** Takes a migration's triggers on comments away again, as a database from before it had none. */
function dropCommentTriggers(kysely: Kysely<Database>, triggers: string[]): Promise<void> {
  return dropTriggers(kysely as unknown as Kysely<unknown>, 'comments', triggers);
}

/**
 * Takes 0041 back: the counts, sort keys, stamp and revision are the comment row's again (with their
 * values), its indexes and triggers as they were, and `comment_counts` goes.
 */
async function beforeCommentCounts(kysely: Kysely<Database>): Promise<void> {
  await dropCommentTriggers(kysely, ['comments_counts_added', 'comments_counts_removed', 'comments_listing_copied', 'comments_shown_column_set', 'comments_reply_added', 'comments_counts_written']);
  for (const column of ['upvotes', 'downvotes', 'score', 'wilson', 'reaction_counts', 'counts_changed_at', 'subtree_revision']) {
    await sql`update comments set ${sql.raw(column)} = (select n.${sql.raw(column)} from comment_counts n where n.comment_id = comments.id)`.execute(kysely);
  }
  await sql`drop table comment_counts`.execute(kysely);
  if (dialectName === 'postgres') await sql`drop function comment_counts_reply_counted()`.execute(kysely);
  for (const [name, order] of [['comments_top_level_top_listed', 'score'], ['comments_top_level_best_listed', 'wilson']]) {
    await sql`create index ${sql.raw(name)} on comments (thread_id, ${sql.raw(order)}, id, listed_public, listed_all) where parent_id is null`.execute(kysely);
  }
  await sql`create index comments_counts_changed on comments (thread_id, counts_changed_at) where counts_changed_at is not null`.execute(kysely);
  await kysely.transaction().execute((trx) =>
    createTriggers(trx as unknown as Kysely<unknown>, [
      {
        name: 'comments_reply_added',
        when: 'after insert on comments for each row when (new.parent_id is not null)',
        body: sql`update comments set subtree_revision = subtree_revision + 1 where id = new.root_id`,
      },
      {
        name: 'comments_shown_column_set',
        when: `after update of content, content_html, mentions, author_badges, pinned_at, author_name, status, moderation_status, is_deleted, is_edited, upvotes, downvotes, reaction_counts on comments for each row`,
        body: sql`update comments set subtree_revision = subtree_revision + 1 where id = new.root_id`,
      },
    ]),
  );
  await sql`delete from kysely_migration where name = '0041_comment_counts'`.execute(kysely);
}

describe('parley migrate', () => {
  it('applies every migration once, then reports the database up to date', async () => {
    database = await freshDatabaseUrl();
    const env = { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'silent' };
    const first = await run('node', ['bin/parley.js', 'migrate'], { env });
    expect(first.stdout).toBe(`applied: ${ALL_MIGRATIONS.join(', ')}\n`);
    const again = await run('node', ['bin/parley.js', 'migrate'], { env });
    expect(again.stdout).toBe('database is up to date\n');
  });

  it('run by three processes at once on a fresh database: all succeed, one applies the set', async () => {
    database = await freshDatabaseUrl();
    const env = { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'silent' };
    const outputs = await Promise.all([1, 2, 3].map(() => run('node', ['bin/parley.js', 'migrate'], { env })));
    const stdout = outputs.map((output) => output.stdout).sort();
    expect(stdout).toEqual([`applied: ${ALL_MIGRATIONS.join(', ')}\n`, 'database is up to date\n', 'database is up to date\n']);
    expect(await appliedNames(open(database.url))).toEqual(ALL_MIGRATIONS);
  });

  it('counts, on upgrading a database, the comments only their authors see that it already held (0009)', async () => {
    database = await freshDatabaseUrl();
    const before = await startParley({ DATABASE_URL: database.url });
    const site = await before.newSite({ moderation: 'all' });
    const reader = await before.signIn(site.api_key, site.site_id, { id: 'reader', name: 'Reader' });
    const thread = pageUrl();
    const posted = await before.request('POST', '/v1/comments', { token: reader, body: { thread_url: thread, site_id: site.site_id, content: 'waiting' } });
    expect(posted.body.status).toBe('pending');
    // The database as 0008 left it: no count, no triggers, 0009 not applied (nor 0041, which moved the columns 0010's indexes hold).
    const { kysely } = before.app.db;
    await beforeCommentCounts(kysely);
    await dropCommentTriggers(kysely, ['comments_only_they_see_added', 'comments_only_they_see_moved', 'comments_only_they_see_removed', 'comments_author_reassigned_counts', 'comments_author_reassigned_only_they_see']);
    await sql`alter table site_users drop column comments_only_they_see`.execute(kysely);
    // Nor the indexes of 0010, which came after it.
    for (const [order, column] of [['top', 'score'], ['best', 'wilson']]) {
      await sql`drop index ${sql.raw(`comments_top_level_${order}_listed`)}`.execute(kysely);
      await sql`create index ${sql.raw(`comments_top_level_${order}`)} on comments (thread_id, ${sql.raw(column)}, id) where parent_id is null`.execute(kysely);
    }
    // Nor the sessions' key column of 0011.
    for (const index of ['sessions_key', 'sessions_site_user']) await sql`drop index ${sql.raw(index)}`.execute(kysely);
    await sql`alter table sessions drop column key_id`.execute(kysely);
    // Nor the tables of 0012, nor the import map of 0015.
    for (const table of ['audit_log', 'staff_links', 'staff_sessions', 'staff_memberships', 'staff', 'import_sources']) await sql`drop table ${sql.raw(table)}`.execute(kysely);
    // Nor the indexes of 0031 (its triggers, which follow the count, went above).
    for (const index of ['votes_voter', 'reactions_reactor', 'flags_flagger', 'site_users_erase_due']) await sql`drop index ${sql.raw(index)}`.execute(kysely);
    await sql`delete from kysely_migration where name in ('0009_comments_only_they_see', '0010_vote_order_listing', '0011_session_keys', '0012_staff', '0015_import_sources', '0031_reader_self_service')`.execute(kysely);
    await before.close();

    const after = await startParley({ DATABASE_URL: database.url });
    try {
      const list = await after.request('GET', `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${site.site_id}`, { token: reader });
      expect(list.body.comments.map((comment: { content: string }) => comment.content)).toEqual(['waiting']);
    } finally {
      await after.close();
    }
  });

  it("counts, on upgrading a database, the comments its moderation queue already held (0024)", async () => {
    database = await freshDatabaseUrl();
    const before = await startParley({ DATABASE_URL: database.url });
    const site = await before.newSite({ moderation: 'guests' });
    const reader = await before.signIn(site.api_key, site.site_id, { id: 'reader', name: 'Reader' });
    const post = async (token: string | undefined, thread: string) =>
      (await before.request('POST', '/v1/comments', { token, body: { thread_url: thread, site_id: site.site_id, content: 'a comment', author_name: token ? undefined : 'Guest' } })).body.id as string;
    const [first, second] = [pageUrl(), pageUrl()];
    await post(undefined, first);
    await post(undefined, second);
    const flagged = await post(reader, first);
    await before.request('POST', `/v1/comments/${flagged}/flag`, { body: {} });
    const removed = await post(reader, second);
    await before.request('PATCH', `/v1/comments/${removed}/moderate`, { token: site.api_key, body: { action: 'remove' } });
    // The database as 0023 left it.
    const { kysely } = before.app.db;
    await dropCommentTriggers(kysely, ['comments_queue_counted', 'comments_queue_count_moved', 'comments_queue_uncounted']);
    await sql`drop table thread_queue_counts`.execute(kysely);
    await sql`delete from kysely_migration where name = '0024_queue_counts'`.execute(kysely);
    await before.close();

    const after = await startParley({ DATABASE_URL: database.url });
    try {
      const counts = await after.request('GET', `/api/comments/counts?site_id=${site.site_id}`, { token: site.api_key });
      expect(counts.body).toEqual({ pending: 2, flagged: 1, spam: 0, removed: 1 });
    } finally {
      await after.close();
    }
  });

  it('counts, on upgrading a database, only the reply mail subscriptions their address owner confirmed (0028)', async () => {
    database = await freshDatabaseUrl();
    const before = await startParley({ DATABASE_URL: database.url });
    const site = await before.newSite({ moderation: 'none' });
    const ada = await before.signIn(site.api_key, site.site_id, { id: 'ada', name: 'Ada' });
    const thread = pageUrl();
    const post = async (token?: string) =>
      (await before.request('POST', '/v1/comments', { token, body: { thread_url: thread, site_id: site.site_id, content: 'a comment', author_name: token ? undefined : 'Guest' } })).body.id as string;
    const [ginas, strangers, adas, unconfirmed] = [await post(), await post(), await post(ada), await post()];
    // The database as 0027 left it: an address confirmed once counted for every subscription of it.
    const { kysely } = before.app.db;
    await sql`alter table mail_subscriptions drop column confirmed_at`.execute(kysely);
    await sql`alter table mail_subscriptions drop column confirm_token_hash`.execute(kysely);
    await sql`delete from kysely_migration where name = '0028_mail_subscription_confirmation'`.execute(kysely);
    await kysely.updateTable('site_users').set({ email: 'Ada@example.com' }).where('site_id', '=', site.site_id).where('external_id', '=', 'ada').execute();
    const [t0, t1, t2] = ['2026-01-01T00:00:00.000Z', '2026-01-01T01:00:00.000Z', '2026-01-01T02:00:00.000Z'];
    const address = (id: string, email: string, confirmedAt: string | null) =>
      ({ id, site_id: site.site_id, email, user_id: null, link_key: 'key', confirmed_at: confirmedAt, confirm_token_hash: null, confirm_expires_at: null, unsubscribed_at: null, created_at: t0 });
    await kysely.insertInto('mail_addresses').values([address('mad_gina', 'gina@example.com', t1), address('mad_ada', 'ada@example.com', t0), address('mad_new', 'new@example.com', null)]).execute();
    const { thread_id } = await kysely.selectFrom('comments').select('thread_id').where('id', '=', ginas).executeTakeFirstOrThrow();
    const subscription = (comment_id: string, address_id: string, created_at: string) => ({ comment_id, address_id, thread_id, created_at, unsubscribed_at: null });
    await sql`insert into mail_subscriptions (comment_id, address_id, thread_id, created_at, unsubscribed_at) values
      ${sql.join([subscription(ginas, 'mad_gina', t0), subscription(strangers, 'mad_gina', t2), subscription(adas, 'mad_ada', t2), subscription(unconfirmed, 'mad_new', t0)].map((row) => sql`(${sql.join(Object.values(row))})`))}`.execute(kysely);
    await before.close();

    const after = await startParley({ DATABASE_URL: database.url });
    try {
      const rows = await after.app.db.kysely.selectFrom('mail_subscriptions').select(['comment_id', 'confirmed_at']).execute();
      const confirmed = rows.filter((row) => row.confirmed_at !== null).map((row) => row.comment_id);
      expect(confirmed.sort()).toEqual([ginas, adas].sort());
    } finally {
      await after.close();
    }
  });

  it('renders, on upgrading a database, the comments written before as the plain text they were, keeps its sites plain with no edit window, and gives new sites Markdown and 15 minutes (0032)', async () => {
    database = await freshDatabaseUrl();
    const before = await startParley({ DATABASE_URL: database.url });
    const site = await before.newSite({ moderation: 'none' });
    const reader = await before.signIn(site.api_key, site.site_id, { id: 'reader', name: 'Reader' });
    const written = await before.request('POST', '/v1/comments', { token: reader, body: { thread_url: pageUrl(), site_id: site.site_id, content: '**not bold** <b>&\n\nsee https://example.org' } });
    // The database as 0031 left it: none of 0032's columns, table, index or triggers, and 0007's trigger on the columns a list showed then.
    const { kysely } = before.app.db;
    await beforeCommentCounts(kysely);
    await dropCommentTriggers(kysely, ['comments_shown_column_set', 'comments_pinned_set']);
    // In a transaction: on SQLite, a statement outside one is prepared first on the reading connection, which may not see the drop yet.
    await kysely.transaction().execute((trx) =>
      createTriggers(trx as unknown as Kysely<unknown>, [{
        name: 'comments_shown_column_set',
        when: 'after update of content, author_name, status, moderation_status, is_deleted, is_edited, upvotes, downvotes, reaction_counts on comments for each row',
        body: sql`update comments set subtree_revision = subtree_revision + 1 where id = new.root_id`,
      }]),
    );
    await sql`drop index comments_pinned`.execute(kysely);
    await sql`drop table comment_revisions`.execute(kysely);
    const added = { comments: ['content_html', 'mentions', 'author_badges', 'pinned_at'], sites: ['formatting', 'edit_window_seconds'], site_users: ['labels', 'mention_mail'] };
    for (const [table, columns] of Object.entries(added)) {
      for (const column of columns) await sql`alter table ${sql.raw(table)} drop column ${sql.raw(column)}`.execute(kysely);
    }
    await sql`delete from kysely_migration where name = '0032_rich_comments'`.execute(kysely);
    await before.close();

    const after = await startParley({ DATABASE_URL: database.url });
    try {
      const comment = await after.request('GET', `/v1/comments/${written.body.id}`, { token: reader });
      expect(comment.body.content_html).toBe('<p>**not bold** &lt;b&gt;&amp;</p>\n<p>see <a href="https://example.org" rel="nofollow ugc noopener">https://example.org</a></p>\n');
      const old = await after.request('GET', `/api/sites/${site.site_id}`, { token: site.api_key });
      expect(old.body).toMatchObject({ formatting: 'plain', edit_window_seconds: null });
      const made = await after.request('POST', '/api/sites', { token: site.api_key, body: { name: 'After the upgrade' } });
      expect(made.body).toMatchObject({ formatting: 'markdown', edit_window_seconds: 900 });
    } finally {
      await after.close();
    }
  });

  it("moves, on upgrading a database, every comment's counts out of its row, and the lists keep their order and counts (0041)", async () => {
    database = await freshDatabaseUrl();
    const before = await startParley({ DATABASE_URL: database.url });
    const site = await before.newSite({ moderation: 'none' });
    const thread = pageUrl();
    const post = async (content: string, parent_id?: string) =>
      (await before.request('POST', '/v1/comments', { token: site.api_key, body: { thread_url: thread, site_id: site.site_id, content, parent_id } })).body.id as string;
    const [low, high] = [await post('low'), await post('high')];
    const answer = await post('a reply', high);
    const voters = await Promise.all(['v1', 'v2'].map((id) => before.signIn(site.api_key, site.site_id, { id, name: id })));
    for (const voter of voters) await before.request('POST', `/v1/comments/${high}/vote`, { token: voter, body: { vote_type: 'up' } });
    await before.request('POST', `/v1/comments/${low}/vote`, { token: voters[0], body: { vote_type: 'down' } });
    await before.request('POST', `/v1/comments/${answer}/react`, { token: voters[1], body: { reaction_type: 'funny' } });
    const list = (parley: typeof before) => parley.request('GET', `/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent(thread)}&sort=top`);
    const listed = (await list(before)).body;
    await beforeCommentCounts(before.app.db.kysely);
    await before.close();

    const after = await startParley({ DATABASE_URL: database.url });
    try {
      expect((await list(after)).body).toEqual(listed);
      expect(listed.comments.map((c: { content: string; upvotes: number; downvotes: number }) => [c.content, c.upvotes, c.downvotes])).toEqual([['high', 2, 0], ['low', 0, 1]]);
      expect(listed.comments[0].replies[0].reaction_counts).toEqual({ funny: 1 });
      // An instance of the release before, during a rolling upgrade, writes the comment's own columns: copied.
      await sql`update comments set upvotes = upvotes + 1, score = score + 1 where id = ${answer}`.execute(after.app.db.kysely);
      after.app.db.changes.threadChanged(site.site_id, thread);
      expect((await list(after)).body.comments[0].replies[0]).toMatchObject({ upvotes: 1, reaction_counts: { funny: 1 } });
      // Counted on as before: a vote after the upgrade moves the counts, the order and the list.
      await after.request('POST', `/v1/comments/${low}/vote`, { token: voters[1], body: { vote_type: 'up' } });
      await after.request('POST', `/v1/comments/${low}/vote`, { token: voters[0], body: { vote_type: 'up' } });
      await after.request('POST', `/v1/comments/${high}/vote`, { token: voters[0], body: { vote_type: 'down' } });
      const counts = (c: { content: string; upvotes: number; downvotes: number }) => [c.content, c.upvotes, c.downvotes];
      expect((await list(after)).body.comments.map(counts)).toEqual([['low', 2, 0], ['high', 1, 1]]);
    } finally {
      await after.close();
    }
  });

  // Pools in one process race for real (processes rarely overlap: start-up takes longer than the
  // migrations). On SQLite a lock wait blocks the whole process, so this race needs PostgreSQL.
  it.skipIf(dialectName !== 'postgres')('from four instances starting together: all succeed, one applies the set', async () => {
    database = await freshDatabaseUrl();
    const url = database.url;
    const instances = [1, 2, 3, 4].map(() => open(url));
    const results = await Promise.all(instances.map((db) => migrateToLatest(db)));
    expect(results.filter((applied) => applied.length > 0)).toEqual([ALL_MIGRATIONS]);
    expect(results.filter((applied) => applied.length === 0)).toHaveLength(3);
    expect(await appliedNames(instances[0])).toEqual(ALL_MIGRATIONS);
  });
});
