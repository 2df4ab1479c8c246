import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { hashSecret } from '../auth/secrets.ts';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { clientKey } from './client-key.ts';
import { openCounters } from './counters.ts';
import { policy, type Policy } from './policies.ts';

/** What a sign-in attempt took from its limits; given back when the attempt succeeds. */
export interface LoginAttempt {
  succeeded(): Promise<void>;
}

export interface LoginLimiter {
  /**
   * Counts an attempt to prove a password for `email` from `ip`, before the password is checked:
   * past either limit it throws 429 `rate_limited` (Retry-After set on `reply`), however right the password.
   */
  attempt(email: string, ip: string, reply: FastifyReply): Promise<LoginAttempt>;
  close(): void;
}

/**
 * Failed staff sign-ins, per email address and per client (clientKey: an IPv6 client is its /64, as
 * for every other limit), in the same counters as the request limits (in process, or in Redis
 * shared by every instance, exact). Every attempt takes a count
 * before the (slow, scrypt) password check, so parallel guesses cannot slip past the limit; a
 * success gives its counts back, so only failures add up. The address is counted by its hash: Redis
 * never holds staff email addresses.
 */
export async function openLoginLimiter(config: Config, log: FastifyBaseLogger): Promise<LoginLimiter> {
  const { perAccount, perIp, windowSeconds } = config.loginLimits;
  const perEmail = perAccount > 0 ? policy('login-account', perAccount, windowSeconds, false) : null;
  const perAddress = perIp > 0 ? policy('login-ip', perIp, windowSeconds, false) : null;
  const policies = [perEmail, perAddress].filter((p): p is Policy => p !== null);
  const counters = await openCounters(config, policies, log);

  /** Takes one count; the seconds until the window ends when it is past the limit, else 0. */
  const take = async (counted: Policy, subject: string): Promise<number> => {
    const result = counters.take(counted, subject);
    // In process the state answers at once; Redis rejects a count past the limit with the state.
    if (!(result instanceof Promise)) return result.consumedPoints > counted.limit ? secondsLeft(result) : 0;
    try {
      await result;
      return 0;
    } catch (outcome) {
      if (outcome instanceof RateLimiterRes) return secondsLeft(outcome);
      log.error({ err: outcome }, 'sign-in limit unavailable; attempt let through');
      return 0;
    }
  };
  const giveBack = async (counted: Policy, subject: string) => {
    try {
      await counters.giveBack(counted, subject);
    } catch (err) {
      log.error({ err }, 'sign-in limit refund failed');
    }
  };
  return {
    async attempt(email, ip, reply) {
      const limits = [
        perEmail && { counted: perEmail, subject: hashSecret(email), what: 'for this account' },
        perAddress && { counted: perAddress, subject: clientKey(ip), what: 'from this address' },
      ].filter((limit) => limit !== null);
      const waits = await Promise.all(limits.map(({ counted, subject }) => take(counted, subject)));
      const refused = waits.findIndex((seconds) => seconds > 0);
      if (refused >= 0) {
        reply.header('retry-after', waits[refused]);
        throw new AppError('rate_limited', `Too many failed sign-ins ${limits[refused].what}; retry in ${waits[refused]} s`);
      }
      return {
        succeeded: async () => {
          await Promise.all(limits.map(({ counted, subject }) => giveBack(counted, subject)));
        },
      };
    },
    close: () => counters.close(),
  };
}

function secondsLeft(state: RateLimiterRes): number {
  return Math.max(1, Math.ceil(state.msBeforeNext / 1000));
}
