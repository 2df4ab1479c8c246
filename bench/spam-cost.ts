/**
 * `node --import tsx bench/spam-cost.ts [rounds] [seconds]`: the spam checks' cost in CPU time per
 * comment, which a loaded host disturbs far less than a rate. On a copy of the database `npm run
 * bench` seeded (SQLite, bench/.cache), 50 writers call createComment in process, as post-comment's
 * users post over HTTP, in rounds cycling through the site's settings below; each one's best round
 * is kept. The process's CPU time counts every thread (the checkpointer's included).
 *
 * Besides checks off and on (as post-comment runs them: the flood is held by the thread's and the
 * site's pace), it splits what "on" costs: the checks with nothing held (no pace limits), and
 * holding without the checks (every comment held for approval by the site's moderation mode); and
 * what the learning classifier adds to the checks, trained first on 200 spam and 200 other mails
 * of the SpamAssassin corpus (bench/spam-corpus.ts) as a site's moderators would have decided them.
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveCaller, type SessionCaller } from '../src/auth/caller.ts';
import { createComment } from '../src/comments/service.ts';
import { connect } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { learn } from '../src/spam/classifier/store.ts';
import { ROOT } from './processes.ts';
import type { Seeded } from './seed.ts';
import { spamCorpus } from './spam-corpus.ts';

interface Setting {
  spam: { enabled: boolean; thread_per_minute?: number; site_per_minute?: number; classifier?: { mode: 'off' | 'hold_above' } };
  moderationMode: 'none' | 'all';
}
const SETTINGS: Record<string, Setting> = {
  'checks off': { spam: { enabled: false }, moderationMode: 'none' },
  'checks on, nothing held': { spam: { enabled: true, thread_per_minute: 0, site_per_minute: 0, classifier: { mode: 'off' } }, moderationMode: 'none' },
  'checks and trained classifier on, nothing held': { spam: { enabled: true, thread_per_minute: 0, site_per_minute: 0, classifier: { mode: 'hold_above' } }, moderationMode: 'none' },
  'checks off, all held for approval': { spam: { enabled: false }, moderationMode: 'all' },
  'checks on (the flood held)': { spam: { enabled: true, classifier: { mode: 'off' } }, moderationMode: 'none' },
};

const rounds = Number(process.argv[2] ?? 4);
const roundMs = Number(process.argv[3] ?? 1.5) * 1000;
const cache = join(ROOT, 'bench/.cache');
const seedName = readdirSync(cache).find((name) => name.startsWith('seed-default-') && name.endsWith('.db'));
if (!seedName) throw new Error('no seeded SQLite database in bench/.cache: run `npm run bench -- --only post-comment` first');
const seeded = JSON.parse(readFileSync(join(cache, seedName.replace(/\.db$/, '.json')), 'utf8')) as Seeded;
const dir = mkdtempSync(join(tmpdir(), 'parley-spam-cost-'));
copyFileSync(join(cache, seedName), join(dir, 'parley.db'));
const db = connect({ databaseUrl: `sqlite:${join(dir, 'parley.db')}`, databasePoolSize: 1, databaseStatementTimeoutMs: 0, databaseSsl: false });

try {
  await migrateToLatest(db);
  const writers = (await Promise.all(seeded.sessions.slice(0, 50).map((token) => resolveCaller(db, token, '127.0.0.1')))) as SessionCaller[];
  await trainClassifier(writers[0]);
  let n = 0;
  /** CPU µs per comment of one round with the site's settings as given. */
  const round = async ({ spam, moderationMode }: Setting) => {
    await db.kysely.updateTable('sites').set({ spam_settings: JSON.stringify(spam), moderation_mode: moderationMode }).where('id', '=', seeded.siteId).execute();
    const ends = Date.now() + roundMs;
    let written = 0;
    const started = process.cpuUsage();
    await Promise.all(
      writers.map(async (writer) => {
        for (; Date.now() < ends; written++) {
          const content = `Benchmark comment ${n++}: a few words about the article.`;
          await createComment(db, { ...writer, hasCommented: true }, { site_id: seeded.siteId, thread_url: seeded.threads.writes, content });
        }
      }),
    );
    const used = process.cpuUsage(started);
    return (used.user + used.system) / written;
  };
  /** The site's moderators decide 200 spam and 200 other mails of the corpus: the model the site's comments meet. */
  async function trainClassifier(writer: SessionCaller) {
    await db.kysely.updateTable('sites').set({ spam_settings: JSON.stringify({ enabled: false }) }).where('id', '=', seeded.siteId).execute();
    const { train } = spamCorpus();
    const examples = [...train.filter((mail) => mail.spam).slice(0, 200), ...train.filter((mail) => !mail.spam).slice(0, 200)];
    for (const mail of examples) {
      const comment = await createComment(db, { ...writer, hasCommented: true }, { site_id: seeded.siteId, thread_url: seeded.threads.writes, content: mail.text });
      await db.kysely.transaction().execute((trx) => learn(trx, seeded.siteId, comment.id, mail.text, mail.spam ? 'spam' : 'ham'));
    }
  }
  const best: Record<string, number> = {};
  for (let i = 0; i < rounds; i++) {
    for (const [name, setting] of Object.entries(SETTINGS)) best[name] = Math.min(best[name] ?? Infinity, await round(setting));
    process.stdout.write(`round ${i + 1}: best so far ${Object.entries(best).map(([name, us]) => `${us.toFixed(0)} µs ${name}`).join(', ')}\n`);
  }
  const off = best['checks off'];
  process.stdout.write(`CPU per comment, and checks off ÷ it:\n${Object.entries(best).map(([name, us]) => `  ${name}: ${us.toFixed(1)} µs, ${((100 * off) / us).toFixed(1)} %`).join('\n')}\n`);
} finally {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}
