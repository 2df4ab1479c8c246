import { followedBy, followedThread } from './notifications.ts';
import { markdownText, type Seeded } from './seed.ts';

/** Which Parley process a case runs against. */
export type Server = 'default' | 'no-cache' | 'cold' | 'no-rate-limits' | 'memory-limits' | 'metrics' | 'mail';

export type Target =
  | { kind: 'ratio'; min: number }
  | { kind: 'rps'; min: number }
  /** p50 latency at most `factor` times that of another case. */
  | { kind: 'latency'; of: string; factor: number }
  /** p50 latency at most `ms`, reported as a multiple of another case's p50 in the same run. */
  | { kind: 'p50'; ms: number; of: string };

export interface Request {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface Case {
  id: string;
  title: string;
  server: Server;
  /** Fastify route of the URL, for the baseline. */
  route: string;
  target?: Target;
  /** The case whose baseline run this one shares (same URL, same bytes). */
  baselineOf?: string;
  /** Sets what the case measures before it runs (a site setting), through the API of the Parley at `base`. */
  prepare?: (base: string) => Promise<void>;
  /** Another case (run before this one), the same requests with something turned off: this one's share of its rate is measured with the two in turn (run.ts, pairedShare). */
  compareWith?: string;
  /** The share of compareWith's rate this case must reach. */
  shareTarget?: number;
  /** The n-th request of a run; a fixed request when `variable` is false. */
  request: (n: number) => Request;
  variable: boolean;
}

function listPath(seeded: Seeded, thread: string, query: string): string {
  return `/v1/comments?site_id=${seeded.siteId}&thread_url=${encodeURIComponent(thread)}&${query}`;
}

const json = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

export function casesFor(seeded: Seeded): Case[] {
  const { threads } = seeded;
  const reader = seeded.sessions[0];
  const writers = seeded.sessions.slice(10, 60);
  const get = (path: string, headers?: Record<string, string>) => () => ({ method: 'GET' as const, path, headers });
  // Every (writer, comment) pair comes round once per cycle, and each cycle flips the vote or the
  // reaction, so every request changes something and no two concurrent ones touch the same pair.
  // Requests in flight together go to different writers and different comments, as pgbench's
  // random picks over the same comments and users do (bench/pgbench.ts): a writer's row and a
  // comment's row are each locked by their write until it commits.
  const pair = (n: number) => {
    const writer = n % writers.length;
    const round = Math.floor(n / writers.length);
    return {
      token: writers[writer],
      comment: seeded.voteTargets[(writer + round) % seeded.voteTargets.length],
      flip: Math.floor(round / seeded.voteTargets.length) % 2 === 1,
    };
  };
  const small = listPath(seeded, threads.small, 'limit=20');
  const countsPath = `/v1/counts?site_id=${seeded.siteId}${seeded.indexPage.map((url) => `&url=${encodeURIComponent(url)}`).join('')}`;
  const whole = listPath(seeded, threads.whole200, 'limit=50');
  const hugeFirst = listPath(seeded, threads.huge, 'limit=20');
  const hugeDeep = listPath(seeded, threads.huge, 'limit=20&page=500');
  const bushy = listPath(seeded, threads.bushy, 'limit=100');
  const list = '/v1/comments';
  const queue = (query: string) => `/api/comments?site_id=${seeded.siteId}&limit=20${query}`;
  const admin = { authorization: `Bearer ${seeded.apiKey}` };
  /**
   * Sets the site's spam checks for the write cases: on with their defaults, on with no pace limits
   * on threads and the site, or off. The learning classifier is off but in its own case, so that
   * these measure the checks as they were before it.
   */
  const spamChecks = (setting: 'defaults' | 'no pace limits' | 'off' | 'classifier') => async (base: string) => {
    const noPace = { enabled: true, thread_per_minute: 0, site_per_minute: 0 };
    const off = { mode: 'off' };
    const spam = {
      defaults: { enabled: true, thread_per_minute: 30, site_per_minute: 120, classifier: off },
      'no pace limits': { ...noPace, classifier: off },
      classifier: { ...noPace, classifier: { mode: 'hold_above', threshold: 0.9, min_examples: 20 } },
      off: { enabled: false },
    }[setting];
    if (setting === 'classifier') await trainClassifier(base);
    const response = await fetch(`${base}/api/sites/${seeded.siteId}`, { method: 'PATCH', headers: json(seeded.apiKey), body: JSON.stringify({ spam }) });
    if (!response.ok) throw new Error(`setting the spam checks (${setting}): ${response.status} ${await response.text()}`);
  };
  const postComment = (n: number): Request => ({
    method: 'POST',
    path: list,
    headers: json(writers[n % writers.length]),
    body: JSON.stringify({ thread_url: threads.writes, site_id: seeded.siteId, content: `Benchmark comment ${n}: a few words about the article.` }),
  });
  /**
   * The site's moderators decide 40 spam and 40 other mails of the SpamAssassin corpus (written
   * pending by readers who are not the benchmark's writers), once: the model the flood then meets.
   */
  const trainClassifier = async (base: string) => {
    const site = `${base}/api/sites/${seeded.siteId}`;
    const learnt = (await (await fetch(`${site}/classifier`, { headers: json(seeded.apiKey) })).json()) as { spam_examples: number; ham_examples: number };
    if (learnt.spam_examples >= 40 && learnt.ham_examples >= 40) return;
    const { spamCorpus } = await import('./spam-corpus.ts');
    const { train } = spamCorpus();
    await fetch(site, { method: 'PATCH', headers: json(seeded.apiKey), body: JSON.stringify({ moderation_mode: 'all', spam: { enabled: false } }) });
    const mails = [...train.filter((mail) => mail.spam).slice(0, 40), ...train.filter((mail) => !mail.spam).slice(0, 40)];
    for (const [i, mail] of mails.entries()) {
      // A thread of their own: the flood's thread stays as in the other write cases.
      const body = JSON.stringify({ thread_url: `${threads.writes}?training`, site_id: seeded.siteId, content: mail.text });
      const posted = (await (await fetch(`${base}${list}`, { method: 'POST', headers: json(seeded.sessions[1 + (i % 9)]), body })).json()) as { id: string };
      const decided = await fetch(`${base}/v1/comments/${posted.id}/moderate`, { method: 'PATCH', headers: json(seeded.apiKey), body: JSON.stringify({ action: mail.spam ? 'spam' : 'approve' }) });
      if (!decided.ok) throw new Error(`teaching the classifier: ${decided.status} ${await decided.text()}`);
    }
    await fetch(site, { method: 'PATCH', headers: json(seeded.apiKey), body: JSON.stringify({ moderation_mode: 'none' }) });
  };
  /** Writes in the site's formatting (spam checks off, as in post-comment-spam-off): Markdown texts, half with a code block. */
  const formatting = (value: 'markdown' | 'plain') => async (base: string) => {
    const response = await fetch(`${base}/api/sites/${seeded.siteId}`, { method: 'PATCH', headers: json(seeded.apiKey), body: JSON.stringify({ formatting: value, spam: { enabled: false } }) });
    if (!response.ok) throw new Error(`setting the formatting (${value}): ${response.status} ${await response.text()}`);
  };
  const postMarkdown = (n: number): Request => ({
    method: 'POST',
    path: list,
    headers: json(writers[n % writers.length]),
    body: JSON.stringify({ thread_url: threads.writes, site_id: seeded.siteId, content: `${n}: ${markdownText(() => (n % 7) / 7)}` }),
  });
  return [
    // Rendering happens when a comment is written: a page of Markdown comments with code blocks
    // reads as fast as the same texts shown as plain text (goal ≥ 90 %), and writing one costs
    // little more (goal ≥ 75 %).
    { id: 'list-plain', title: 'public list, 100 Markdown texts written as plain text, limit=20', server: 'default', route: list, request: get(listPath(seeded, threads.plain, 'limit=20')), variable: false },
    {
      id: 'list-markdown',
      title: 'public list, the same 100 texts rendered as Markdown (code blocks highlighted), limit=20',
      server: 'default',
      route: list,
      compareWith: 'list-plain',
      shareTarget: 0.9,
      request: get(listPath(seeded, threads.markdown, 'limit=20')),
      variable: false,
    },
    { id: 'post-comment-plain', title: 'POST /v1/comments of Markdown texts on a plain site (spam checks off)', server: 'default', route: list, variable: true, prepare: formatting('plain'), request: postMarkdown },
    {
      id: 'post-comment-markdown',
      title: 'POST /v1/comments of the same texts rendered as Markdown, half with a highlighted code block',
      server: 'default',
      route: list,
      variable: true,
      prepare: formatting('markdown'),
      compareWith: 'post-comment-plain',
      shareTarget: 0.75,
      request: postMarkdown,
    },
    { id: 'list-100', title: 'public list, 100-comment thread, page 1, limit=20', server: 'default', route: list, target: { kind: 'ratio', min: 0.6 }, request: get(small), variable: false },
    // The same page as HTML (src/thread-html): made from list-100's kept list, kept itself, and a fresh form token spliced in per answer.
    {
      id: 'thread-html',
      title: 'thread as HTML (GET /v1/comments/html), 100-comment thread, page 1',
      server: 'default',
      route: '/v1/comments/html',
      target: { kind: 'ratio', min: 0.6 },
      request: get(`/v1/comments/html?site_id=${seeded.siteId}&thread_url=${encodeURIComponent(threads.small)}`),
      variable: false,
    },
    { id: 'whole-200', title: 'public list, whole 200-comment thread (50 top-level), limit=50', server: 'default', route: list, target: { kind: 'ratio', min: 0.6 }, request: get(whole), variable: false },
    // An index page's counts: 100 thread URLs in one request, answered from the counts kept in memory.
    { id: 'counts-100', title: 'comment counts of an index page, 100 URLs', server: 'default', route: '/v1/counts', target: { kind: 'ratio', min: 0.6 }, request: get(countsPath), variable: false },
    { id: 'huge-page-1', title: 'public list, 100,000-comment thread, page 1', server: 'default', route: list, target: { kind: 'latency', of: 'list-100', factor: 1.5 }, request: get(hugeFirst), variable: false },
    { id: 'huge-page-500', title: 'public list, 100,000-comment thread, page 500', server: 'default', route: list, target: { kind: 'latency', of: 'list-100', factor: 1.5 }, request: get(hugeDeep), variable: false },
    { id: 'personalised', title: "session user's list (own votes and reactions), 100-comment thread", server: 'default', route: list, target: { kind: 'ratio', min: 0.2 }, request: get(small, { authorization: `Bearer ${reader}` }), variable: false },
    { id: 'subtree-500', title: 'GET /v1/comments/:id with a 500-reply subtree', server: 'default', route: '/v1/comments/:id', request: get(`/v1/comments/${seeded.subtreeRoot}`), variable: false },
    // The spam checks' cost: the same writes with the site's checks off, then on. On with their
    // defaults, the thread's velocity (30 a minute) holds all but the first comments of each minute
    // of this flood (50 writers, one thread): post-comment, which measures what the checks and
    // holding cost a flood. With the thread's and site's pace limits off, every check runs and none
    // holds: post-comment-spam-on, what the checks cost the comments they let through (goal ≥ 90 %).
    {
      id: 'post-comment-spam-off',
      title: "post-comment with the site's spam checks off",
      server: 'default',
      route: list,
      variable: true,
      prepare: spamChecks('off'),
      request: postComment,
    },
    {
      id: 'post-comment-spam-on',
      title: "post-comment with the site's spam checks on but no pace limit on threads and the site, so that none holds",
      server: 'default',
      route: list,
      variable: true,
      prepare: spamChecks('no pace limits'),
      compareWith: 'post-comment-spam-off',
      shareTarget: 0.9,
      request: postComment,
    },
    {
      // The learning classifier's cost: post-comment-spam-on with the classifier on, trained on 80
      // mails of the SpamAssassin corpus; the benchmark's comments are not spam to it, so none holds.
      id: 'post-comment-classifier-on',
      title: "post-comment-spam-on with the site's learning classifier on and trained",
      server: 'default',
      route: list,
      variable: true,
      prepare: spamChecks('classifier'),
      compareWith: 'post-comment-spam-off',
      shareTarget: 0.9,
      request: postComment,
    },
    {
      id: 'post-comment',
      title: 'POST /v1/comments (with its outbox row and the spam checks), 50 session users',
      server: 'default',
      route: list,
      target: { kind: 'rps', min: 3000 },
      variable: true,
      prepare: spamChecks('defaults'),
      compareWith: 'post-comment-spam-off',
      request: postComment,
    },
    {
      // A comment costs one fan-out job row, however many follow the thread: the worker tells them
      // after the commit, in the same process, beside the requests.
      id: 'post-comment-followed',
      title: 'POST /v1/comments into a thread with 1,000 followers, 50 session users',
      server: 'default',
      route: list,
      target: { kind: 'latency', of: 'post-comment', factor: 1.25 },
      baselineOf: 'post-comment',
      variable: true,
      prepare: async (base) => {
        await spamChecks('defaults')(base);
        await followedBy(base, seeded, followedThread(seeded), 1_000);
      },
      request: (n) => ({
        method: 'POST',
        path: list,
        headers: json(writers[n % writers.length]),
        // Texts of their own: one of post-comment's again, by the same writer, would be held as a copy.
        body: JSON.stringify({ thread_url: followedThread(seeded), site_id: seeded.siteId, content: `Benchmark comment ${n} for the followers: a few words about the article.` }),
      }),
    },
    {
      // With mail on, each comment also keeps its author's address and a subscription to its replies
      // (the first of each author queues a confirmation mail), and a reply is checked for a mail to send.
      id: 'post-comment-mail',
      title: 'POST /v1/comments with "Email me replies", mail on, 50 session users',
      server: 'mail',
      route: list,
      target: { kind: 'latency', of: 'post-comment', factor: 1.25 },
      baselineOf: 'post-comment',
      variable: true,
      request: (n) => ({
        method: 'POST',
        path: list,
        headers: json(writers[n % writers.length]),
        body: JSON.stringify({
          thread_url: threads.writes,
          site_id: seeded.siteId,
          // Texts of their own: one of post-comment's again, by the same writer, would be held as a copy.
          content: `Benchmark comment ${n} asking for replies: a few words about the article.`,
          notify_replies: true,
          email: `writer-${n % writers.length}@example.com`,
        }),
      }),
    },
    {
      id: 'vote',
      title: 'POST /v1/comments/:id/vote, each request switching a vote',
      server: 'default',
      route: '/v1/comments/:id/vote',
      target: { kind: 'rps', min: 3000 },
      variable: true,
      request: (n) => {
        const { token, comment, flip } = pair(n);
        return { method: 'POST', path: `/v1/comments/${comment}/vote`, headers: json(token), body: JSON.stringify({ vote_type: flip ? 'down' : 'up' }) };
      },
    },
    {
      id: 'react',
      title: 'POST /v1/comments/:id/react, each request switching a reaction',
      server: 'default',
      route: '/v1/comments/:id/react',
      variable: true,
      request: (n) => {
        const { token, comment, flip } = pair(n);
        return { method: 'POST', path: `/v1/comments/${comment}/react`, headers: json(token), body: JSON.stringify({ reaction_type: flip ? 'funny' : 'insightful' }) };
      },
    },
    // The cache-miss path: the same reads from a process whose response cache is off, so every
    // request is assembled as the first read after a write to its thread is: the page's top-level
    // comments and their revisions from the database, their serialised subtrees from memory (a
    // write re-reads the one subtree it touched; that one re-read is not in these figures).
    { id: 'list-100-miss', title: 'list-100 on the cache-miss path', server: 'no-cache', route: list, baselineOf: 'list-100', target: { kind: 'ratio', min: 0.2 }, request: get(small), variable: false },
    { id: 'whole-200-miss', title: 'whole-200 on the cache-miss path', server: 'no-cache', route: list, baselineOf: 'whole-200', target: { kind: 'ratio', min: 0.2 }, request: get(whole), variable: false },
    { id: 'huge-page-1-miss', title: 'huge-page-1 on the cache-miss path', server: 'no-cache', route: list, baselineOf: 'huge-page-1', target: { kind: 'latency', of: 'list-100-miss', factor: 1.5 }, request: get(hugeFirst), variable: false },
    { id: 'huge-page-500-miss', title: 'huge-page-500 on the cache-miss path', server: 'no-cache', route: list, baselineOf: 'huge-page-500', target: { kind: 'latency', of: 'list-100-miss', factor: 1.5 }, request: get(hugeDeep), variable: false },
    // Nothing kept at all (subtrees off too): every request reads and serialises every comment, as
    // the first read of a thread after a start does (whole-200 so: see bench/after-write.ts).
    { id: 'list-100-cold', title: 'list-100 with nothing kept in memory', server: 'cold', route: list, baselineOf: 'list-100', request: get(small), variable: false },
    // A page of 100 top-level comments with 500 replies each: what a page nests is bounded (1,000
    // replies, about 1 MB), so this costs about what a page of that many comments does, kept or not.
    { id: 'bushy-page', title: 'public list, 100 top-level comments × 500 replies, limit=100', server: 'default', route: list, request: get(bushy), variable: false },
    { id: 'bushy-page-cold', title: 'bushy-page with nothing kept in memory', server: 'cold', route: list, baselineOf: 'bushy-page', request: get(bushy), variable: false },
    // What recording every request for /metrics costs: list-100 on a Parley with PARLEY_METRICS_TOKEN
    // set, against list-100's own rate in the same run (and the same bare baseline).
    { id: 'list-100-metrics', title: 'list-100 with /metrics on (every request counted and timed)', server: 'metrics', route: list, baselineOf: 'list-100', request: get(small), variable: false },
    // The management API's moderation queue over the whole site (every comment seeded), each item
    // with its thread, parent excerpt, flags and author's record; and a full-text search in it: one
    // author's comments (1 in 60) by name.
    { id: 'queue-first-page', title: 'moderation queue, first page (GET /api/comments, admin key)', server: 'default', route: '/api/comments', target: { kind: 'p50', ms: 50, of: 'list-100' }, request: get(queue(''), admin), variable: false },
    { id: 'queue-search', title: 'moderation queue, full-text search (q=reader 7)', server: 'default', route: '/api/comments', target: { kind: 'p50', ms: 50, of: 'list-100' }, request: get(queue('&q=reader+7'), admin), variable: false },
    // The queue's tab counts, asked again after every action in the dashboard: one statement over
    // the partial indexes of the comments that are not published or are flagged.
    { id: 'queue-counts', title: 'moderation queue tab counts (GET /api/comments/counts)', server: 'default', route: '/api/comments/counts', target: { kind: 'p50', ms: 50, of: 'list-100' }, request: get(`/api/comments/counts?site_id=${seeded.siteId}`, admin), variable: false },
  ];
}
