import { resolveCaller, type Caller } from '../src/auth/caller.ts';
import { createComment } from '../src/comments/service.ts';
import { connect, type Db } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { catchUpSearchIndex } from '../src/db/search-index.ts';
import { createSession } from '../src/sessions/service.ts';
import { bootstrap } from '../src/sites/bootstrap.ts';
import { setVote, toggleReaction } from '../src/votes/service.ts';

/**
 * The benchmark's data, written through Parley's own service functions (the same rules,
 * transactions and outbox rows as the HTTP API) so the database looks like one a real site grew.
 */
export interface Seeded {
  siteId: string;
  apiKey: string;
  /** Session tokens of site users: the personalised reader and the writers of the write cases. */
  sessions: string[];
  threads: {
    small: string;
    whole200: string;
    large: string;
    huge: string;
    /** 100 top-level comments with 500 replies each: more than a list page nests. */
    bushy: string;
    writes: string;
    /** Two 100-comment threads of the same Markdown texts (code blocks included), written while the site rendered Markdown, and plain text. */
    markdown: string;
    plain: string;
  };
  /** The 100 posts of an index page, each showing its comment count (33 to 52 comments each). */
  indexPage: string[];
  /** A comment of the 10,000-comment thread with 500 replies below it. */
  subtreeRoot: string;
  /** Comments of the write thread that the vote and reaction cases act on. */
  voteTargets: string[];
  comments: number;
  votes: number;
  seconds: number;
}

/** Comments created at once (every thread has more top-level comments than this, so the first batch needs no parent). */
const BATCH = 32;
const BASE = 'https://blog.example.com/posts';
const WORDS = 'the a comment reply thread agree disagree point good idea article thanks why because however data source read more'.split(' ');

/** Deterministic pseudo-random numbers, so every run seeds the same shapes. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sentence(rand: () => number): string {
  const length = 12 + Math.floor(rand() * 50);
  const words: string[] = [];
  for (let i = 0; i < length; i++) words.push(WORDS[Math.floor(rand() * WORDS.length)]);
  return `${words.join(' ')}.`;
}

interface Context {
  db: Db;
  siteId: string;
  key: Caller;
  users: Caller[];
  rand: () => number;
  comments: number;
  votes: number;
  /** A comment's text: a sentence, unless a thread asks for other texts. */
  text: (rand: () => number) => string;
}

/**
 * A thread of `total` comments, `topLevel` of them at the top; each reply answers a recent comment
 * (most conversations continue near the end) to a depth of at most 8, and about one comment in
 * ten gets one to three votes. Returns the ids in creation order.
 */
async function seedThread(ctx: Context, url: string, total: number, topLevel: number): Promise<string[]> {
  // Exactly `topLevel` top-level comments, spread through the thread's life; the first batch opens it.
  const isTop = Array.from({ length: total }, (_, i) => i < topLevel);
  for (let i = total - 1; i > BATCH; i--) {
    const j = BATCH + 1 + Math.floor(ctx.rand() * (i - BATCH));
    [isTop[i], isTop[j]] = [isTop[j], isTop[i]];
  }
  const ids: string[] = [];
  const depth = new Map<string, number>();
  // Requests come in concurrently, as they would from many readers (and share group commits).
  for (let start = 0; start < total; start += BATCH) {
    const batch = isTop.slice(start, Math.min(total, start + BATCH)).map((top) => {
      const author = ctx.users[Math.floor(ctx.rand() * ctx.users.length)];
      let parentId: string | null = null;
      if (!top) {
        const recent = ids[ids.length - 1 - Math.floor(ctx.rand() * Math.min(ids.length, 200))];
        parentId = (depth.get(recent) ?? 0) < 8 ? recent : ids[Math.floor(ctx.rand() * ids.length)];
        if ((depth.get(parentId) ?? 0) >= 8) parentId = ids[0];
      }
      return { author, parentId, content: ctx.text(ctx.rand) };
    });
    const created = await Promise.all(
      batch.map(({ author, parentId, content }) => createComment(ctx.db, author, { thread_url: url, site_id: ctx.siteId, content, parent_id: parentId })),
    );
    created.forEach((comment, i) => {
      depth.set(comment.id, batch[i].parentId === null ? 0 : (depth.get(batch[i].parentId!) ?? 0) + 1);
      ids.push(comment.id);
    });
    ctx.comments += created.length;
    await Promise.all(created.filter(() => ctx.rand() < 0.1).map((comment) => voteOn(ctx, comment.id, 1 + Math.floor(ctx.rand() * 3))));
  }
  return ids;
}

/**
 * A Markdown comment as readers write them: a paragraph with emphasis, inline code and a link, and
 * (every other one) a fenced block of code, which the server highlights.
 */
export function markdownText(rand: () => number): string {
  const words = sentence(rand);
  const code = 'function score(votes) {\n  const up = votes.filter((v) => v > 0).length;\n  return up / Math.max(1, votes.length);\n}';
  const paragraph = `**${words.slice(0, 12)}** ${words.slice(12)} Try \`score(votes)\`, as [the docs](https://docs.example.com/score) say.`;
  return rand() < 0.5 ? `${paragraph}\n\n\`\`\`js\n${code}\n\`\`\`` : paragraph;
}

/** The same Markdown texts in two threads: one written while the site rendered Markdown, one while it showed plain text. */
async function seedFormattedThreads(ctx: Context, markdownUrl: string, plainUrl: string): Promise<void> {
  const { rand, text } = ctx;
  ctx.text = markdownText;
  for (const [url, formatting] of [[markdownUrl, 'markdown'], [plainUrl, 'plain']] as const) {
    await ctx.db.kysely.updateTable('sites').set({ formatting }).where('id', '=', ctx.siteId).execute();
    ctx.rand = random(7);
    await seedThread(ctx, url, 100, 40);
  }
  Object.assign(ctx, { rand, text });
  await ctx.db.kysely.updateTable('sites').set({ formatting: 'markdown' }).where('id', '=', ctx.siteId).execute();
}

async function voteOn(ctx: Context, commentId: string, voters: number): Promise<void> {
  for (let v = 0; v < voters; v++) {
    const voter = ctx.users[(Math.floor(ctx.rand() * ctx.users.length) + v) % ctx.users.length];
    await setVote(ctx.db, voter, commentId, ctx.rand() < 0.8 ? 'up' : 'down');
    ctx.votes += 1;
  }
}

/** `topLevel` top-level comments with `replies` direct replies each, written a batch at a time. */
async function seedBushyThread(ctx: Context, url: string, topLevel: number, replies: number): Promise<void> {
  const roots: string[] = [];
  for (let i = 0; i < topLevel; i++) roots.push((await createComment(ctx.db, ctx.key, { thread_url: url, site_id: ctx.siteId, content: sentence(ctx.rand) })).id);
  const parents = roots.flatMap((root) => Array.from({ length: replies }, () => root));
  for (let start = 0; start < parents.length; start += BATCH) {
    await Promise.all(
      parents.slice(start, start + BATCH).map((parentId, i) =>
        createComment(ctx.db, ctx.users[(start + i) % ctx.users.length], { thread_url: url, site_id: ctx.siteId, content: sentence(ctx.rand), parent_id: parentId }),
      ),
    );
  }
  ctx.comments += topLevel * (replies + 1);
}

/** A chain of replies under `rootId`: each answers one of the last few, `count` in all. */
async function seedSubtree(ctx: Context, url: string, rootId: string, count: number): Promise<void> {
  const ids = [rootId];
  for (let i = 0; i < count; i++) {
    const parentId = ids[Math.max(0, ids.length - 1 - Math.floor(ctx.rand() * 6))];
    const author = ctx.users[i % ctx.users.length];
    const reply = await createComment(ctx.db, author, { thread_url: url, site_id: ctx.siteId, content: sentence(ctx.rand), parent_id: parentId });
    ids.push(reply.id);
    ctx.comments += 1;
  }
}

export interface SeedOptions {
  databaseUrl: string;
  /** 1,000,000 comments in all instead of about 110,000. */
  full: boolean;
  /** Only the 100-comment thread and the one the write cases act on (`--postgres`: its cases read no other). */
  writesOnly?: boolean;
  log: (line: string) => void;
}

export async function seed(options: SeedOptions): Promise<Seeded> {
  const started = Date.now();
  const db = connect({ databaseUrl: options.databaseUrl, databasePoolSize: 10, databaseStatementTimeoutMs: 0, databaseSsl: false });
  try {
    await migrateToLatest(db);
    const site = await bootstrap(db.kysely, { siteName: 'Benchmark blog', plan: 'business' });
    // Seeded as an import would write it: the spam checks (whose velocity check would hold most of a
    // 100,000-comment thread written in minutes) are turned on again at the end, with their defaults.
    await db.kysely.updateTable('sites').set({ spam_settings: JSON.stringify({ enabled: false }) }).where('id', '=', site.site_id).execute();
    const key = await resolveCaller(db, site.api_key, '127.0.0.1');
    const sessions: string[] = [];
    const users: Caller[] = [];
    for (let i = 0; i < 60; i++) {
      const session = await createSession(db, key, { site_id: site.site_id, user: { id: `reader-${i}`, name: `Reader ${i}` } });
      sessions.push(session.token);
      users.push(await resolveCaller(db, session.token, '127.0.0.1'));
    }
    const ctx: Context = { db, siteId: site.site_id, key, users, rand: random(42), comments: 0, votes: 0, text: sentence };
    const threads = {
      small: `${BASE}/hundred`,
      whole200: `${BASE}/two-hundred`,
      large: `${BASE}/ten-thousand`,
      huge: `${BASE}/hundred-thousand`,
      bushy: `${BASE}/hundred-times-five-hundred`,
      writes: `${BASE}/writes`,
      markdown: `${BASE}/markdown`,
      plain: `${BASE}/plain`,
    };
    const indexPage = Array.from({ length: 100 }, (_, index) => `${BASE}/index-${index}`);
    const progress = (label: string) => options.log(`  ${label}: ${ctx.comments} comments, ${ctx.votes} votes, ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const small = await seedThread(ctx, threads.small, 100, 40);
    // The personalised reader has voted and reacted on part of the page it reads.
    const reader = users[0];
    for (const id of small.slice(-30, -10)) await setVote(db, reader, id, 'up');
    for (const id of small.slice(-20)) await toggleReaction(db, reader, id, 'insightful');
    let subtreeRoot = small[0];
    if (!options.writesOnly) {
      await seedThread(ctx, threads.whole200, 200, 50);
      progress('small threads');

      const large = await seedThread(ctx, threads.large, 9_500, 2_500);
      subtreeRoot = large[100];
      await seedSubtree(ctx, threads.large, subtreeRoot, 500);
      progress('10,000-comment thread');

      await seedThread(ctx, threads.huge, 100_000, 30_000);
      progress('100,000-comment thread');

      await seedBushyThread(ctx, threads.bushy, 100, 500);
      progress('100 × 500 thread');

      for (const [index, url] of indexPage.entries()) await seedThread(ctx, url, BATCH + 1 + (index % 20), BATCH + 1);
      progress('index page of 100 posts');
    }

    const voteTargets = await seedThread(ctx, threads.writes, 200, 200);
    if (!options.writesOnly) {
      await seedFormattedThreads(ctx, threads.markdown, threads.plain);
      progress('Markdown and plain threads');
    }
    if (options.full) {
      for (let t = 0; ctx.comments < 1_000_000; t++) {
        await seedThread(ctx, `${BASE}/archive-${t}`, Math.min(10_000, 1_000_000 - ctx.comments), 2_500);
        if (t % 10 === 9) progress(`archive threads (${t + 1})`);
      }
    }
    await db.kysely.updateTable('sites').set({ spam_settings: '{}' }).where('id', '=', site.site_id).execute();
    // As an import leaves it: nobody follows the seeded threads, so their comments' fan-out jobs have
    // nothing to do, and a backlog of them would sit before every case's own.
    await db.kysely.deleteFrom('notification_jobs').execute();
    // As a running server leaves it: its indexer has indexed every comment for search.
    if (db.dialect === 'sqlite') await catchUpSearchIndex(db.kysely);
    return {
      siteId: site.site_id,
      apiKey: site.api_key,
      sessions,
      threads,
      indexPage,
      subtreeRoot,
      voteTargets,
      comments: ctx.comments,
      votes: ctx.votes,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    await db.close();
  }
}
