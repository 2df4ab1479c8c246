import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract, type RateLimiterRes } from 'rate-limiter-flexible';
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

/** Counts while Redis is away. Each policy has its own, so keys need no prefix. */
function memoryLimiter(policy: Policy): RateLimiterMemory {
  return new RateLimiterMemory({ keyPrefix: '', points: policy.limit, duration: policy.windowSeconds });
}

/**
 * In-process counters, exact for one instance: the library's store, which RateLimiterMemory counts
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
 * Counters in Redis (an atomic Lua increment per request), shared by every instance. While Redis is
 * unreachable each policy's insurance limiter counts in process, so the service keeps answering.
 */
async function redisCounters(url: string, policies: Policy[], prefix: string, log: FastifyBaseLogger): Promise<Counters> {
  const redis = new Redis(url, { enableOfflineQueue: false, commandTimeout: REDIS_COMMAND_TIMEOUT_MS });
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

  const limiters = new Map<PolicyName, RateLimiterAbstract>(
    policies.map((policy) => [
      policy.name,
      new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `${prefix}:${policy.name}`,
        points: policy.limit,
        duration: policy.windowSeconds,
        rejectIfRedisNotReady: true,
        insuranceLimiter: memoryLimiter(policy),
        // Once a subject is past a request limit, the rest of its window is refused without asking
        // Redis; comment limits are not, because a failed creation gives its count back.
        inMemoryBlockOnConsumed: policy.refundsFailures ? 0 : policy.limit + 1,
      }),
    ]),
  );
  return {
    take: (policy, subject) => limiters.get(policy.name)!.consume(subject),
    giveBack: (policy, subject) => limiters.get(policy.name)!.reward(subject),
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
