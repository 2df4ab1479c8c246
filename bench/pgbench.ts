import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

/**
 * What the PostgreSQL server itself allows for Parley's writes: pgbench running, in one durable
 * transaction each, the fewest row writes the write needs, on the same server, at the same client
 * concurrency as the case (one client per autocannon connection, each on its own connection).
 *
 * - `comment`: one comment creation at the minimum: the comment row, its outbox (event) row and the
 *   thread's counters. Every transaction goes to one thread, as the `post-comment` case does, so the
 *   thread row's lock is contended as Parley's is; the update comes last, to hold it the least time.
 * - `vote`: one vote or reaction at the minimum: the vote row (insert or switch) and the comment's
 *   counts, over the same 200 comments × 50 users the `vote` and `react` cases use.
 *
 * The tables are bare (a primary key each, no trigger, no other index): the baseline is the
 * database's commit rate for that many row writes, not Parley's schema.
 *
 * - `vote-schema`: not a baseline but the other bound: the statement a vote writes with (the mark,
 *   and its comment's counts, score, Wilson bound and stamp), as Parley sends it, on Parley's own
 *   tables with their indexes and triggers, over the same 200 comments (as voters of its own), with
 *   none of the vote's other round trips. What the database commits of Parley's schema.
 */
export type PgbenchScript = 'comment' | 'vote' | 'vote-schema';

const SETUP = `
drop table if exists bench_comments, bench_events, bench_threads, bench_votes, bench_counts;
create table bench_comments (id bigserial primary key, thread_id int not null, author text not null, content text not null, created_at timestamptz not null default now());
create table bench_events (id bigserial primary key, type text not null, data text not null, created_at timestamptz not null default now());
create table bench_threads (id int primary key, total int not null default 0);
insert into bench_threads (id) values (1);
create table bench_votes (comment_id int not null, voter int not null, value int not null, primary key (comment_id, voter));
create table bench_counts (id int primary key, up int not null default 0, down int not null default 0);
insert into bench_counts (id) select generate_series(1, 200);
`;

const SCRIPTS: Record<PgbenchScript, string> = {
  comment: `
begin;
insert into bench_comments (thread_id, author, content) values (1, 'usr_reader', 'Benchmark comment: a few words about the article.');
insert into bench_events (type, data) values ('comment.created', '{"comment":{"id":"cmt_x","content":"Benchmark comment: a few words about the article."}}');
update bench_threads set total = total + 1 where id = 1;
end;
`,
  vote: `
\\set comment random(1, 200)
\\set voter random(1, 50)
\\set value random(0, 1)
begin;
insert into bench_votes (comment_id, voter, value) values (:comment, :voter, :value) on conflict (comment_id, voter) do update set value = excluded.value;
update bench_counts set up = up + :value, down = down + 1 - :value where id = :comment;
end;
`,
  'vote-schema': `
\\set comment random(1, 200)
\\set voter random(1, 50)
with marked as (
  insert into votes (comment_id, voter_ref, value, by_moderator, created_at)
  select id, 'pgbench_' || cast(:voter as text), 1, 0, '2026-01-01T00:00:00.000Z' from bench_vote_targets where n = cast(:comment as integer)
  on conflict (comment_id, voter_ref) do update set value = -votes.value returning comment_id)
update comment_counts set upvotes = upvotes + 1, score = score + 1, wilson = 0.5, subtree_revision = subtree_revision + top_level, counts_changed_at = cast(clock_timestamp() as text)
where comment_id = (select comment_id from marked);
`,
};

export interface PgbenchResult {
  transactionsPerSecond: number;
  /** pgbench's average latency, ms. */
  latencyMs: number;
}

/** Creates the baseline's tables in the database at `url` (the run's own, dropped with it), and numbers the vote cases' comments for `vote-schema`. */
export async function preparePgbench(url: string, voteTargets: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(SETUP);
    await client.query('create table bench_vote_targets (n int primary key, id text not null)');
    await client.query('insert into bench_vote_targets select n, id from unnest(cast($1 as text[])) with ordinality as t(id, n)', [voteTargets]);
  } finally {
    await client.end();
  }
}

/** One pgbench run of `script` for `seconds` with `clients` connections. */
export async function runPgbench(url: string, script: PgbenchScript, clients: number, seconds: number): Promise<PgbenchResult> {
  const file = join(mkdtempSync(join(tmpdir(), 'parley-pgbench-')), `${script}.sql`);
  writeFileSync(file, SCRIPTS[script]);
  const { stdout } = await promisify(execFile)('pgbench', ['-n', '-M', 'prepared', '-f', file, '-c', String(clients), '-j', '2', '-T', String(seconds), url]);
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(stdout);
  const latency = /latency average = ([\d.]+) ms/.exec(stdout);
  if (!tps) throw new Error(`pgbench printed no rate:\n${stdout}`);
  return { transactionsPerSecond: Number(tps[1]), latencyMs: latency ? Number(latency[1]) : NaN };
}
