/**
 * Query plans at scale, on PostgreSQL: seeds 1,000,000 comments, as many votes and as many webhook
 * deliveries into a fresh database with INSERT … SELECT generate_series, VACUUM ANALYZEs, then runs
 * Parley's own list, reply, subtree, vote, moderation and delivery-claim paths, and the management
 * API's queue (filters and full-text search), threads, recent comments, log, commenter profile and
 * stats, with every query captured, and EXPLAINs each one. A sequential scan of a large table fails the run (exit 1).
 *
 *   node --import tsx scripts/explain.ts [postgres://server/db] [--keep] [--comments=1000000]
 *
 * The URL names the server (default PARLEY_TEST_DATABASE_URL, else postgres://127.0.0.1:5432/test);
 * the data goes into a new database that is dropped afterwards unless --keep is given.
 */
import { randomBytes } from 'node:crypto';
import { sql, type Kysely, type LogEvent } from 'kysely';
import pg from 'pg';
import type { Caller } from '../src/auth/caller.ts';
import { commentCaches } from '../src/comments/caches.ts';
import type { ListQuery } from '../src/comments/public-list.ts';
import { createComment, listComments, readComment } from '../src/comments/service.ts';
import { loadConfig } from '../src/config.ts';
import { connect, postgresUrl } from '../src/db/connect.ts';
import type { Database } from '../src/db/schema.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { countQueuedComments } from '../src/db/migrations/0024_queue_counts.ts';
import { commenterProfile } from '../src/commenters/service.ts';
import { moderationLog, moderationLogOf } from '../src/moderation/log.ts';
import { queueCounts } from '../src/moderation/counts.ts';
import { moderationQueue, type QueueQuery } from '../src/moderation/queue.ts';
import { flagComment, moderateComment } from '../src/moderation/service.ts';
import { recentComments } from '../src/recent/recent.ts';
import { findSite } from '../src/sites/repository.ts';
import { siteStats } from '../src/stats/service.ts';
import { listThreads } from '../src/threads/service.ts';
import { bootstrap } from '../src/sites/bootstrap.ts';
import { setVote, toggleReaction } from '../src/votes/service.ts';
import { claim, dueOf, dueSites } from '../src/webhooks/repository.ts';
import { formatIndexUse, indexUse } from './index-use.ts';

const args = process.argv.slice(2);
const keep = args.includes('--keep');
const sizeArgument = args.find((arg) => arg.startsWith('--comments='));
/** A multiple of 4 (see seed); --comments=N for a quicker look. */
const COMMENTS = sizeArgument ? Number(sizeArgument.split('=')[1]) : 1_000_000;
const VOTES = COMMENTS;
/** One thread holds a fifth of all comments: the worst case for a page of it. */
const BIG_THREAD_GROUPS = COMMENTS / 20;
const SMALL_THREADS = 1_000;
/** A sequential scan of a table this big (rows, per ANALYZE) is a bug in a request path. */
const LARGE_TABLE_ROWS = 10_000;

const serverUrl = postgresUrl(args.find((arg) => !arg.startsWith('--')) ?? process.env.PARLEY_TEST_DATABASE_URL ?? 'postgres://127.0.0.1:5432/test');

interface CapturedQuery {
  scenario: string;
  sql: string;
  parameters: readonly unknown[];
}

const captured: CapturedQuery[] = [];
let scenario = 'setup';
const log = (event: LogEvent) => {
  if (event.level === 'query') captured.push({ scenario, sql: event.query.sql, parameters: event.query.parameters });
};

async function onServer<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const commentId = (n: string) => `'cmt_' || lpad((${n})::text, 26, '0')`;
const isoTime = (seconds: string) => `to_char(timestamp '2024-01-01' + (${seconds}) * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * Comments come in groups of four: a top-level comment, two replies to it and a reply to the second
 * reply. The first BIG_THREAD_GROUPS groups form one thread; the rest spread over SMALL_THREADS.
 * About 2 % are pending, 1 % removed, 1 % deleted, 0.5 % flagged; authors are 5,000 site users.
 */
async function seed(db: Kysely<Database>, siteId: string): Promise<void> {
  const now = new Date().toISOString();
  const timed = async (label: string, work: Promise<unknown>) => {
    const started = Date.now();
    await work;
    process.stdout.write(`  ${label}: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  };
  // Loading without the secondary indexes and building them afterwards is several times faster.
  const { rows: indexes } = await sql<{ name: string; definition: string }>`
    select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as definition
    from pg_index i where i.indrelid in ('comments'::regclass, 'comment_counts'::regclass, 'votes'::regclass, 'webhook_deliveries'::regclass) and not i.indisprimary and not i.indisunique`.execute(db);
  for (const index of indexes) await sql`drop index ${sql.raw(index.name)}`.execute(db);
  await sql`insert into threads (id, site_id, url_key, created_at)
    select 'thr_' || lpad(t::text, 8, '0'), ${siteId}, 'https://blog.example.com/posts/' || t, ${now}
    from generate_series(0, ${SMALL_THREADS}) t`.execute(db);
  await sql`insert into site_users (id, site_id, external_id, name, avatar_url, first_comment_at, created_at)
    select 'usr_' || u, ${siteId}, 'ext-' || u, 'User ' || u, null, ${now}, ${now} from generate_series(0, 4999) u`.execute(db);
  // The triggers that keep list revisions (migration 0007) would queue an update of the top-level
  // row for each of 750,000 replies; the plans do not depend on the counters. The listing flags are
  // set as the write paths keep them (a deleted top-level comment left unlisted even with live
  // replies), so every list reads real pages (the public's with their subtrees).
  await sql`alter table comments disable trigger user`.execute(db);
  await timed(`${COMMENTS} comments`, sql
    .raw(
      `insert into comments (id, site_id, thread_id, parent_id, root_id, author_ref, author_name, content, status,
         moderation_status, is_deleted, is_edited, created_at, updated_at, listed_public, listed_all, flag_count)
       select ${commentId('i')}, '${siteId}',
         'thr_' || lpad((case when g < ${BIG_THREAD_GROUPS} then 0 else 1 + g % ${SMALL_THREADS} end)::text, 8, '0'),
         case (i - 1) % 4 when 0 then null when 3 then ${commentId('i - 1')} else ${commentId('4 * g + 1')} end,
         ${commentId('4 * g + 1')}, 'usr_' || (i % 5000), 'User ' || (i % 5000), 'Comment number ' || i,
         case when i % 50 = 7 then 'pending' when i % 97 = 3 then 'removed' else 'published' end,
         case when i % 50 = 7 then 'pending' when i % 97 = 3 then 'removed' end,
         (i % 101 = 5)::int, 0, ${isoTime('i')}, ${isoTime('i')},
         ((i - 1) % 4 = 0 and i % 50 <> 7 and i % 97 <> 3 and i % 101 <> 5)::int, ((i - 1) % 4 = 0 and i % 101 <> 5)::int,
         case when i % 200 = 1 then 1 + i % 3 else 0 end
       from (select i, (i - 1) / 4 as g from generate_series(1, ${COMMENTS}) i) s`,
    )
    .execute(db));
  await timed(`${COMMENTS} comments' counts`, sql
    .raw(
      `insert into comment_counts (comment_id, thread_id, root_id, top_level, upvotes, downvotes, score, wilson, listed_public, listed_all)
       select id, thread_id, root_id, (parent_id is null)::int, up, down, up - down, up::float / (up + down + 2), listed_public, listed_all
       from (select c.*, (substr(c.id, 5)::bigint * 7919 % 50)::int as up, (substr(c.id, 5)::bigint * 104729 % 10)::int as down from comments c) s`,
    )
    .execute(db));
  await sql`alter table comments enable trigger user`.execute(db);
  // The queue's counts per thread, which the triggers would have kept: the counts' read depends on them.
  await countQueuedComments(db);
  // Every top-level comment gets votes; comment 1 is a hot one with 20,000 of them. The voters'
  // marks revisions (migration 0008) would take an update each, and no plan depends on them.
  const topLevel = COMMENTS / 4;
  await sql`alter table votes disable trigger user`.execute(db);
  await timed(`${VOTES} votes`, sql
    .raw(
      `insert into votes (comment_id, voter_ref, value, by_moderator, created_at)
       select ${commentId('4 * ((j - 1) % ' + topLevel + ') + 1')}, 'usr_' || ((j - 1) / ${topLevel}), case when j % 5 = 0 then -1 else 1 end, 0, '${now}'
       from generate_series(1, ${VOTES - 20_000}) j
       union all
       select ${commentId('1')}, 'voter_' || v, 1, 0, '${now}' from generate_series(1, 20000) v`,
    )
    .execute(db));
  await sql`alter table votes enable trigger user`.execute(db);
  // Webhook deliveries: nearly all done, a thousand due now, a thousand due later.
  await timed(`${COMMENTS} webhook deliveries`, sql
    .raw(
      `insert into webhook_deliveries (id, site_id, event_id, event, body, state, attempt_count, run_attempts, is_test, next_attempt_at, lease_until, created_at)
       select 'del_' || lpad(d::text, 26, '0'), '${siteId}', 'evt_' || d, 'comment.created', '{}',
         case when d % 1000 = 1 then 'pending' when d % 1000 = 2 then 'pending' else 'succeeded' end, 1, 1, 0,
         case when d % 1000 = 1 then ${isoTime('d')} when d % 1000 = 2 then '2999-01-01T00:00:00.000Z' end, null, ${isoTime('d')}
       from generate_series(1, ${COMMENTS}) d`,
    )
    .execute(db));
  await sql`set maintenance_work_mem = '256MB'`.execute(db);
  await timed(`${indexes.length} indexes`, (async () => {
    for (const index of indexes) await sql.raw(index.definition).execute(db);
  })());
  // As autovacuum leaves a table in steady state: statistics and the visibility map (index-only scans).
  await timed('vacuum analyze', sql`vacuum analyze`.execute(db));
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Total Time'?: number;
  Plans?: PlanNode[];
}

function scansOf(node: PlanNode, out: PlanNode[] = []): PlanNode[] {
  if (node['Relation Name'] || node['Index Name']) out.push(node);
  for (const child of node.Plans ?? []) scansOf(child, out);
  return out;
}

const describeScan = (node: PlanNode) =>
  `${node['Node Type']} ${node['Relation Name'] ?? ''}${node['Index Name'] ? ` (${node['Index Name']})` : ''}`.replace('  ', ' ');

async function explainAll(client: pg.Client): Promise<boolean> {
  const { rows: tables } = await client.query<{ name: string }>(
    `select relname as name from pg_class where relkind = 'r' and relnamespace = 'public'::regnamespace and reltuples >= $1`,
    [LARGE_TABLE_ROWS],
  );
  const large = new Set(tables.map((table) => table.name));
  process.stdout.write(`large tables: ${[...large].join(', ')}\n\n`);
  const seen = new Set<string>();
  let clean = true;
  for (const query of captured) {
    const text = query.sql.trim();
    if (query.scenario === 'setup' || /^(begin|commit|rollback|set |reset |savepoint|release)/i.test(text) || seen.has(text)) continue;
    seen.add(text);
    // Reads run for real (EXPLAIN ANALYZE) to show timings; writes, already made once by the
    // scenario, are only planned.
    const analyze = /^(select|with)/i.test(text) ? 'analyze, ' : '';
    const { rows } = await client.query(`explain (${analyze}format json) ${text}`, query.parameters as unknown[]);
    const plan: { Plan: PlanNode; 'Execution Time'?: number } = rows[0]['QUERY PLAN'][0];
    const scans = scansOf(plan.Plan);
    const bad = scans.filter((node) => node['Node Type'] === 'Seq Scan' && large.has(node['Relation Name']!));
    if (bad.length > 0) clean = false;
    const rowsRead = Math.max(0, ...scans.map((node) => node['Actual Rows'] ?? 0));
    const summary = `${[...new Set(scans.map(describeScan))].join(', ') || 'no table'}${analyze ? `; largest scan ${rowsRead} rows` : ''}`;
    const ms = plan['Execution Time'] === undefined ? '(plan)' : `${plan['Execution Time'].toFixed(2)} ms`;
    process.stdout.write(`${bad.length ? 'SEQ ' : 'ok  '} ${query.scenario.padEnd(28)} ${ms.padStart(11)}  ${summary}\n       ${text.replace(/\s+/g, ' ').slice(0, 150)}\n`);
  }
  return clean;
}

async function main(): Promise<number> {
  const name = `parley_explain_${randomBytes(4).toString('hex')}`;
  await onServer((client) => client.query(`create database ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = connect(loadConfig({ DATABASE_URL: url.href, PARLEY_DATABASE_STATEMENT_TIMEOUT_MS: '0' }), log);
  try {
    await migrateToLatest(db);
    const site = await bootstrap(db.kysely, { siteName: 'Explain', plan: 'business' });
    const key = await db.kysely.selectFrom('api_keys').selectAll().where('account_id', '=', site.account_id).executeTakeFirstOrThrow();
    const started = Date.now();
    // One connection, so the session settings of the load apply to all of it.
    await db.kysely.connection().execute((session) => seed(session, site.site_id));
    process.stdout.write(`seeded ${COMMENTS} comments and ${VOTES} votes, analyzed: ${((Date.now() - started) / 1000).toFixed(1)} s\n\n`);

    const guest: Caller = { kind: 'public', ip: '127.0.0.1' };
    const admin: Caller = { kind: 'key', ip: '127.0.0.1', keyId: key.id, accountId: site.account_id, role: 'admin', siteIds: null, name: key.name };
    const user: Caller = { kind: 'session', ip: '127.0.0.1', sessionId: 'sess_explain', accountId: site.account_id, siteId: site.site_id, userId: 'usr_17', userName: 'User 17', labels: [], moderator: false, hasCommented: true, marksRevision: 0, hasCommentsOnlyTheySee: true };
    const bigThread = 'https://blog.example.com/posts/0';
    const top = 'cmt_' + '1'.padStart(26, '0');
    const reply = 'cmt_' + '12'.padStart(26, '0');
    const pending = 'cmt_' + '57'.padStart(26, '0');

    // Nothing kept, so every list reads all of its rows; JSON.stringify writes a comment as the schema does.
    const nothingKept = commentCaches(db.changes, 0, 0);
    const publicList = (query: ListQuery) => () => nothingKept.lists.read(db, JSON.stringify(query), query, JSON.stringify);
    const list = (sort: ListQuery['sort'], page = 1): ListQuery => ({ thread_url: bigThread, site_id: site.site_id, sort, page, limit: 20 });
    const scenarios: [string, () => Promise<unknown>][] = [];
    for (const sort of ['newest', 'oldest', 'top', 'best'] as const) {
      scenarios.push([`list ${sort} (guest)`, publicList(list(sort))]);
      scenarios.push([`list ${sort} (user)`, () => listComments(db, user, list(sort), publicList(list(sort)), nothingKept.readerMarks)]);
      scenarios.push([`list ${sort} (moderator)`, () => listComments(db, admin, list(sort), publicList(list(sort)), nothingKept.readerMarks)]);
    }
    for (const sort of ['newest', 'top', 'best'] as const) scenarios.push([`list ${sort} page 50 (guest)`, publicList(list(sort, 50))]);
    const oneComment = (caller: Caller, id: string) => () =>
      readComment(db, caller, id, {}, nothingKept.comments.at(db, id, id, {}, JSON.stringify), nothingKept.readerMarks);
    scenarios.push(['get comment + subtree part', oneComment(guest, top)]);
    scenarios.push(['get nested reply', oneComment(user, reply)]);
    scenarios.push(['vote on hot comment', () => setVote(db, user, top, 'up')]);
    scenarios.push(['remove vote', () => setVote(db, user, top, null)]);
    scenarios.push(['react', () => toggleReaction(db, user, top, 'funny')]);
    scenarios.push(['reply', () => createComment(db, user, { thread_url: bigThread, site_id: site.site_id, content: 'A reply', parent_id: reply })]);
    scenarios.push(['moderate (approve)', () => moderateComment(db, admin, pending, 'approve', null)]);
    scenarios.push(['flag', () => flagComment(db, guest, top, 'spam')]);
    scenarios.push(['claim webhook deliveries', async () => {
      const now = new Date().toISOString();
      const ids = (await Promise.all((await dueSites(db.kysely, now)).map((due) => dueOf(db.kysely, due, now, 50)))).flat();
      await claim(db, ids, now, new Date(Date.now() + 60_000).toISOString());
    }]);

    const queue = (query: QueueQuery) => () => moderationQueue(db, admin, { site_id: site.site_id, ...query });
    const siteRow = (await findSite(db.kysely, site.site_id))!;
    // The second page too: its cursor's row-value comparison must seek the index as the first page does.
    const twoPages = (query: QueueQuery) => async () => {
      const first = await moderationQueue(db, admin, { site_id: site.site_id, ...query });
      if (first.next_cursor) await moderationQueue(db, admin, { site_id: site.site_id, ...query, cursor: first.next_cursor });
    };
    scenarios.push(['queue first page', twoPages({})]);
    scenarios.push(['queue all sites', () => moderationQueue(db, admin, {})]);
    for (const status of ['pending', 'flagged', 'deleted', 'published'] as const) scenarios.push([`queue ${status}`, twoPages({ status })]);
    scenarios.push(['queue most flagged', twoPages({ sort: 'most_flagged' })]);
    scenarios.push(['queue oldest', twoPages({ sort: 'oldest' })]);
    scenarios.push(['queue big thread', twoPages({ thread_url: bigThread })]);
    scenarios.push(['queue author', twoPages({ author: 'usr_17' })]);
    scenarios.push(['queue since', queue({ since: '2024-01-05T00:00:00.000Z', sort: 'oldest' })]);
    // Every comment holds "number"; "17" is in 200 author names and one comment.
    scenarios.push(['queue search, common word', twoPages({ q: 'number' })]);
    // (Filtered as well, so that its SQL differs from the common word's and is explained too.)
    scenarios.push(['queue search, rare word', queue({ q: '17', status: 'published' })]);
    scenarios.push(['queue search + pending', queue({ q: 'comment', status: 'pending' })]);
    scenarios.push(['queue counts', () => queueCounts(db, admin, site.site_id)]);
    scenarios.push(['threads', () => listThreads(db.kysely, siteRow, {})]);
    scenarios.push(['recent comments of a site', () => recentComments(db.kysely, site.site_id, 20)]);
    scenarios.push(['recent comments of a thread', () => recentComments(db.kysely, site.site_id, 20, bigThread)]);
    scenarios.push(['moderation log', () => moderationLog(db, [siteRow.id], {})]);
    scenarios.push(['moderation log of every site, a week', () => moderationLogOf(db, admin, { since: new Date(Date.now() - 7 * 86_400_000).toISOString() })]);
    scenarios.push(['commenter profile', () => commenterProfile(db, siteRow, 'usr_17')]);
    scenarios.push(['stats (days counted)', () => siteStats(db.kysely, siteRow)]);
    scenarios.push(['stats (days kept)', () => siteStats(db.kysely, siteRow)]);

    for (const [label, run] of scenarios) {
      scenario = label;
      await run();
    }
    scenario = 'setup';
    const target = new pg.Client({ connectionString: url.href });
    await target.connect();
    const clean = await explainAll(target);
    const use = await indexUse(target).finally(() => target.end());
    process.stdout.write(`\nindex use over the run:\n${formatIndexUse(use)}`);
    process.stdout.write(clean ? '\nno sequential scan of a large table\n' : '\nSEQUENTIAL SCANS FOUND (lines marked SEQ)\n');
    return clean ? 0 : 1;
  } finally {
    await db.close();
    if (keep) process.stdout.write(`kept database ${url.href}\n`);
    else await onServer((client) => client.query(`drop database if exists ${name} with (force)`));
  }
}

process.exit(await main());
