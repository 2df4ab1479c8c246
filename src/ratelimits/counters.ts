import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import { RateLimiterRes } from 'rate-limiter-flexible';
import BlockedKeys from 'rate-limiter-flexible/lib/component/BlockedKeys/BlockedKeys.js';
import MemoryStorage from 'rate-limiter-flexible/lib/component/MemoryStorage/MemoryStorage.js';
import type { Config } from '../config.ts';
import type { Policy, PolicyName } from './policies.ts';

/** How long a Redis command may take before the in-process counters answer instead. */
const REDIS_COMMAND_TIMEOUT_MS = 500;
/** How long start-up waits for Redis before serving with in-process counters. */
const REDIS_STARTUP_WAIT_MS = 2000;

/**
 * What a count returns: the subject's state after it. In process it is answered at once, and a count
 * past the limit shows in `consumedPoints`; from Redis it is a promise, rejected past the limit (with
 * the state) or when Redis cannot answer (with the error).
 */
export type CountResult = RateLimiterRes | Promise<RateLimiterRes>;

export interface Counters {
  /** Counts one request of `subject` under `policy`. */
  take(policy: Policy, subject: string): CountResult;
  /** Gives one count back. */
  giveBack(policy: Policy, subject: string): CountResult;
  close(): void;
}

/**
 * In-process counters, exact for one instance (and what each instance counts in while Redis is away): the library's store, which RateLimiterMemory counts
 * in, used directly, so the answer comes at once. Through RateLimiterMemory's promise the limiter
 * cost 6.0 and 6.2 % of a cached list's throughput; this way 5.1 and 4.0 % (BENCHMARKS.md).
 */
function memoryCounters(policies: Policy[]): Counters {
  const stores = new Map<PolicyName, MemoryStorage>(policies.map((policy) => [policy.name, new MemoryStorage()]));
  const add = (policy: Policy, subject: string, points: number) => {
    const state = stores.get(policy.name)!.incrby(subject, points, policy.windowSeconds);
    state.remainingPoints = Math.max(policy.limit - state.consumedPoints, 0);
    return state;
  };
  return { take: (policy, subject) => add(policy, subject, 1), giveBack: (policy, subject) => add(policy, subject, -1), close: () => {} };
}

/**
 * One call adds to several counters at once: each key is given a window if it has none, increased by
 * its points, and answered with its count and the milliseconds its window has left. Keys and windows
 * are rate-limiter-flexible's (which counted here before), so instances of both count together
 * during a rolling upgrade; as there, a key found without a window gets one.
 */
const COUNT_SCRIPT = `
local answers = {}
for i, key in ipairs(KEYS) do
  redis.call('set', key, 0, 'EX', ARGV[2 * i], 'NX')
  answers[2 * i - 1] = redis.call('incrby', key, ARGV[2 * i - 1])
  local ttl = redis.call('pttl', key)
  if ttl == -1 then
    redis.call('expire', key, ARGV[2 * i])
    ttl = 1000 * ARGV[2 * i]
  end
  answers[2 * i] = ttl
end
return answers`;

interface CountingRedis extends Redis {
  parleyCount(keyCount: number, ...keysAndArguments: (string | number)[]): Promise<number[]>;
}

interface Waiting {
  points: number;
  resolve: (state: RateLimiterRes) => void;
  reject: (outcome: unknown) => void;
}

interface Batched {
  policy: Policy;
  subject: string;
  waiting: Waiting[];
}

/**
 * Counters in Redis, shared by every instance and exact in sum. One round trip per request cost a
 * cached list a third of its throughput, so the counts asked for in one turn of the event loop go
 * to Redis together, in one script call that adds each subject's requests at once; each request
 * then reads its own place in the sum (the count before the call plus the requests before it), as
 * if it had been counted alone. A request still waits for its count: nothing is admitted on a guess.
 * While Redis is unreachable or slow each policy counts in process, so the service keeps answering.
 */
async function redisCounters(url: string, policies: Policy[], prefix: string, log: FastifyBaseLogger): Promise<Counters> {
  const redis = new Redis(url, { enableOfflineQueue: false, commandTimeout: REDIS_COMMAND_TIMEOUT_MS }) as CountingRedis;
  redis.defineCommand('parleyCount', { lua: COUNT_SCRIPT });
  let state: 'connecting' | 'shared' | 'local' | 'closed' = 'connecting';
  const fallBack = (err?: Error) => {
    if (state === 'local' || state === 'closed') return;
    state = 'local';
    log.warn({ err }, 'Redis is unreachable: rate limits are counted per process until it is back');
  };
  redis.on('error', fallBack);
  redis.on('close', () => fallBack());
  redis.on('ready', () => {
    if (state === 'local') log.info('Redis is back: rate limits are shared again');
    state = 'shared';
  });
  // Start with shared counters when Redis answers soon; otherwise serve now and switch when it does.
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, REDIS_STARTUP_WAIT_MS).unref();
    const settle = () => {
      clearTimeout(timer);
      redis.off('ready', settle).off('error', settle);
      resolve();
    };
    redis.once('ready', settle).once('error', settle);
  });

  const local = memoryCounters(policies);
  // Once a subject is past a request limit, the rest of its window is refused without asking Redis;
  // comment limits are not, because a failed creation gives its count back.
  const refusedUntil = new Map<PolicyName, BlockedKeys>(policies.map((policy) => [policy.name, new BlockedKeys()]));
  let batch = new Map<string, Batched>();

  const answer = ({ policy, subject, waiting }: Batched, count: number, msLeft: number) => {
    let consumed = count - waiting.reduce((sum, { points }) => sum + points, 0);
    for (const { points, resolve, reject } of waiting) {
      consumed += points;
      const result = new RateLimiterRes(Math.max(policy.limit - consumed, 0), Math.max(msLeft, 0), consumed, false);
      if (points < 0 || consumed <= policy.limit) resolve(result);
      else {
        if (!policy.refundsFailures) refusedUntil.get(policy.name)!.addMs(subject, result.msBeforeNext);
        reject(result);
      }
    }
  };
  // Counted in process instead, each request on its own, as when Redis is away.
  const answerLocally = ({ policy, subject, waiting }: Batched) => {
    for (const { points, resolve, reject } of waiting) {
      const result = points > 0 ? local.take(policy, subject) : local.giveBack(policy, subject);
      if (points < 0 || (result as RateLimiterRes).consumedPoints <= policy.limit) resolve(result as RateLimiterRes);
      else reject(result);
    }
  };
  const send = async () => {
    const sent = [...batch.values()];
    batch = new Map();
    const keys = sent.map(({ policy, subject }) => `${prefix}:${policy.name}:${subject}`);
    const args = sent.flatMap(({ policy, waiting }) => [waiting.reduce((sum, { points }) => sum + points, 0), policy.windowSeconds]);
    try {
      const answers = await redis.parleyCount(keys.length, ...keys, ...args);
      sent.forEach((counted, i) => answer(counted, answers[2 * i], answers[2 * i + 1]));
    } catch (err) {
      log.warn({ err }, 'Redis did not count a batch of requests; they were counted in process');
      sent.forEach(answerLocally);
    }
  };
  const count = (policy: Policy, subject: string, points: number): CountResult => {
    if (state !== 'shared') return points > 0 ? local.take(policy, subject) : local.giveBack(policy, subject);
    const refusedMs = points > 0 ? refusedUntil.get(policy.name)!.msBeforeExpire(subject) : 0;
    if (refusedMs > 0) return Promise.reject(new RateLimiterRes(0, refusedMs, policy.limit + 1, false));
    if (batch.size === 0) setImmediate(() => void send());
    const key = `${policy.name} ${subject}`;
    let batched = batch.get(key);
    if (!batched) batch.set(key, (batched = { policy, subject, waiting: [] }));
    const waiting = batched.waiting;
    return new Promise((resolve, reject) => waiting.push({ points, resolve, reject }));
  };
  return {
    take: (policy, subject) => count(policy, subject, 1),
    giveBack: (policy, subject) => count(policy, subject, -1),
    close: () => {
      state = 'closed';
      redis.disconnect();
    },
  };
}

export async function openCounters(config: Config, policies: Policy[], log: FastifyBaseLogger): Promise<Counters> {
  if (!config.redisUrl || policies.length === 0) return memoryCounters(policies);
  return redisCounters(config.redisUrl, policies, config.rateLimits.redisKeyPrefix, log);
}

/**
 * Takes one count of `subject` for a limit counted outside the request hooks (sign-ins, mails): its
 * state after the count, or null when the counter cannot answer (logged as `what`; the action is let
 * through). In process the state answers at once; Redis rejects a count past the limit with the state.
 */
export async function countedState(counters: Counters, counted: Policy, subject: string, log: FastifyBaseLogger, what: string): Promise<RateLimiterRes | null> {
  const result = counters.take(counted, subject);
  if (!(result instanceof Promise)) return result;
  try {
    return await result;
  } catch (outcome) {
    if (outcome instanceof RateLimiterRes) return outcome;
    log.error({ err: outcome }, `${what} unavailable; let through`);
    return null;
  }
}

/** Takes one count of `subject` (as countedState): the seconds until its window ends when it is past the limit, else 0. */
export async function secondsPastLimit(counters: Counters, counted: Policy, subject: string, log: FastifyBaseLogger, what: string): Promise<number> {
  const state = await countedState(counters, counted, subject, log, what);
  return state && state.consumedPoints > counted.limit ? secondsLeft(state) : 0;
}

/** The whole seconds a refusal's Retry-After says: at least one. */
export function secondsLeft(state: RateLimiterRes): number {
  return Math.max(1, Math.ceil(state.msBeforeNext / 1000));
}
