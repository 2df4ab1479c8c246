/**
 * How long an upgrade of a large database takes, and how long it holds requests up: seeds comments
 * (default 1,000,000: a quarter of them top-level, three replies each, with counts and reactions)
 * into a fresh database migrated up to `--from`, then applies the rest while a probe on a connection
 * of its own reads a comment and updates another every 20 ms, and prints the migration's time and,
 * on PostgreSQL, the longest the probe waited for a read and for a write.
 *
 *   node --import tsx scripts/migration-time.ts [postgres://server/db] [--comments=1000000] [--from=0040_mail_digests]
 *
 * Without a URL it runs on SQLite, in a temporary file; a PostgreSQL URL names the server, and the
 * data goes into a new database dropped afterwards.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { freshPostgresDatabase } from '../test/helper.ts';
import { loadConfig } from '../src/config.ts';
import { connect, postgresUrl, type Db } from '../src/db/connect.ts';
import { migrateTo, migrateToLatest } from '../src/db/migrate.ts';
import { bootstrap } from '../src/sites/bootstrap.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => args.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const COMMENTS = Number(option('comments', '1000000'));
const FROM = option('from', '0040_mail_digests');
const THREADS = 1_000;
const given = args.find((arg) => !arg.startsWith('--'));
const serverUrl = given && postgresUrl(given);

async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (serverUrl) return freshPostgresDatabase(serverUrl, 'parley_migration');
  const dir = mkdtempSync(join(tmpdir(), 'parley-migration-'));
  return { url: `sqlite:${join(dir, 'parley.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

/** The seed's statements run as long as they take; the probe's are cut off as requests' are. */
const open = (url: string, unbounded = false) => connect(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', ...(unbounded && { PARLEY_DATABASE_STATEMENT_TIMEOUT_MS: '0' }) }));

/** `count` comments in threads of site `siteId`, as the schema of `--from` holds them (one statement, portable but for the ids' padding). */
async function seed(db: Db, siteId: string, count: number): Promise<void> {
  const padded = (n: string) => (db.dialect === 'postgres' ? `'cmt_' || lpad((${n})::text, 26, '0')` : `'cmt_' || printf('%026d', ${n})`);
  const root = '(i - (i - 1) % 4)';
  await sql
    .raw(
      `insert into threads (id, site_id, url_key, created_at)
       with recursive t(n) as (select 0 union all select n + 1 from t where n < ${THREADS - 1})
       select 'thr_' || n, '${siteId}', 'https://blog.example.com/posts/' || n, '2024-01-01T00:00:00.000Z' from t`,
    )
    .execute(db.kysely);
  await sql
    .raw(
      `insert into comments (id, site_id, thread_id, parent_id, root_id, author_name, content, content_html, status, is_deleted, is_edited,
         upvotes, downvotes, score, wilson, reaction_counts, created_at, updated_at, listed_public, listed_all)
       with recursive s(i) as (select 1 union all select i + 1 from s where i < ${count})
       select ${padded('i')}, '${siteId}', 'thr_' || ((i - 1) / 4 % ${THREADS}),
         case when (i - 1) % 4 = 0 then null else ${padded(root)} end, ${padded(root)}, 'Reader ' || (i % 5000),
         'Comment ' || i || ': a few words about the article, and a second sentence.', '<p>Comment ' || i || ': a few words about the article, and a second sentence.</p>',
         'published', 0, 0, i % 7, i % 3, i % 7 - i % 3, 0.1 * (i % 7), case when i % 10 = 0 then '{"funny":1}' else '{}' end,
         '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z', case when (i - 1) % 4 = 0 then 1 else 0 end, case when (i - 1) % 4 = 0 then 1 else 0 end
       from s`,
    )
    .execute(db.kysely);
}

/** Reads one comment and updates another every 20 ms until stopped; answers the longest wait for each. */
function probe(db: Db, count: number) {
  const longest = { read: 0, write: 0, failed: 0 };
  let running = true;
  const id = () => `cmt_${String(1 + Math.floor(Math.random() * count)).padStart(26, '0')}`;
  const timed = async (kind: 'read' | 'write', work: () => Promise<unknown>) => {
    const started = performance.now();
    await work().catch(() => longest.failed++);
    longest[kind] = Math.max(longest[kind], performance.now() - started);
  };
  const done = (async () => {
    while (running) {
      await timed('read', () => db.kysely.selectFrom('comments').select(['id', 'content']).where('id', '=', id()).execute());
      await timed('write', () => db.kysely.updateTable('comments').set({ updated_at: new Date().toISOString() }).where('id', '=', id()).execute());
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await done;
      return longest;
    },
  };
}

const database = await freshDatabase();
const db = open(database.url, true);
const prober = open(database.url);
try {
  await migrateTo(db, FROM);
  const { site_id } = await bootstrap(db.kysely, { siteName: 'Archive', domains: [] });
  let started = performance.now();
  await seed(db, site_id, COMMENTS);
  await sql.raw(db.dialect === 'postgres' ? 'vacuum analyze' : 'analyze').execute(db.kysely);
  console.log(`${db.dialect}: ${COMMENTS} comments seeded at ${FROM} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const probing = probe(prober, COMMENTS);
  await new Promise((resolve) => setTimeout(resolve, 500));
  started = performance.now();
  const applied = await migrateToLatest(db);
  const seconds = (performance.now() - started) / 1000;
  const longest = await probing.stop();
  console.log(`applied ${applied.join(', ')} in ${seconds.toFixed(1)} s`);
  // SQLite runs in this process, whose event loop each of its statements holds: the probe waits for the whole migration however it locks.
  if (db.dialect === 'postgres') console.log(`probe: longest read ${(longest.read / 1000).toFixed(2)} s, longest write ${(longest.write / 1000).toFixed(2)} s, ${longest.failed} failed`);
  else console.log('SQLite: the instance serves nothing while it migrates (its statements hold the event loop)');
} finally {
  await prober.close();
  await db.close();
  await database.drop();
}
