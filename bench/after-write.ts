import type { FastifyInstance } from 'fastify';
import type { Request } from './cases.ts';
import { appOf, median, turnNowAndThen } from './in-process.ts';

/** What run.ts passes to this script (bundled and run by plain node, as bench/limiter.ts is). */
export interface AfterWriteJob {
  env: Record<string, string>;
  /** A Parley whose page cache is off (subtrees kept), and one that keeps nothing. */
  keptEnv: Record<string, string>;
  coldEnv: Record<string, string>;
  read: Request;
  /** A session user's token: their vote on one reply of the read page flips before each timed read. */
  voter: string;
}

/** CPU time of one read through fastify.inject, medians of the rounds. */
export interface AfterWriteCost {
  /** Nothing changed since the last read: the page assembled from kept subtrees. */
  unchangedMicros: number;
  /** A vote on a reply came before the read: its subtree is read and serialised again. */
  afterVoteMicros: number;
  /** Nothing kept: every comment read and serialised. */
  coldMicros: number;
  rounds: number;
  readsPerRound: number;
}

const ROUNDS = 6;
const READS_PER_ROUND = 100;


function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

async function read(app: FastifyInstance, request: Request): Promise<{ comments: Array<{ replies: Array<{ id: string }> }> }> {
  const response = await app.inject({ method: request.method, url: request.path, headers: request.headers });
  if (response.statusCode !== 200) throw new Error(`after-write run: ${response.statusCode} ${response.body}`);
  return response.json();
}

/**
 * What the first read after a write costs, next to a read with nothing changed and one with nothing
 * kept: the benchmark's `*-miss` cases read a page no write touched between their requests, so the
 * one subtree a write makes stale is measured here. Only the reads are timed, not the votes.
 */
async function measure({ env, keptEnv, coldEnv, read: request, voter }: AfterWriteJob): Promise<AfterWriteCost> {
  const kept = await appOf(env, keptEnv);
  const cold = await appOf(env, coldEnv);
  try {
    const page = await read(kept, request);
    const reply = page.comments.find((comment) => comment.replies.length > 0)?.replies[0].id;
    if (!reply) throw new Error('after-write run: the page has no reply to vote on');
    let votes = 0;
    const vote = async () => {
      const body = JSON.stringify({ vote_type: votes++ % 2 === 0 ? 'down' : 'up' });
      const response = await kept.inject({ method: 'POST', url: `/v1/comments/${reply}/vote`, headers: { authorization: `Bearer ${voter}`, 'content-type': 'application/json' }, payload: body });
      if (response.statusCode !== 200) throw new Error(`after-write vote: ${response.statusCode} ${response.body}`);
    };
    const timedReads = async (app: FastifyInstance, before?: () => Promise<void>): Promise<number> => {
      let spent = 0;
      for (let i = 0; i < READS_PER_ROUND; i++) {
        await before?.();
        const start = cpuMicros();
        await read(app, request);
        spent += cpuMicros() - start;
        await turnNowAndThen(i);
      }
      return spent / READS_PER_ROUND;
    };
    await timedReads(kept, vote);
    await timedReads(cold);
    const unchanged: number[] = [];
    const afterVote: number[] = [];
    const coldRuns: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      unchanged.push(await timedReads(kept));
      afterVote.push(await timedReads(kept, vote));
      coldRuns.push(await timedReads(cold));
    }
    return { unchangedMicros: median(unchanged), afterVoteMicros: median(afterVote), coldMicros: median(coldRuns), rounds: ROUNDS, readsPerRound: READS_PER_ROUND };
  } finally {
    await kept.close();
    await cold.close();
  }
}

process.stdout.write(`${JSON.stringify(await measure(JSON.parse(process.argv[2]) as AfterWriteJob))}\n`);
process.exit(0);
