import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import type { RateLimiterRes } from 'rate-limiter-flexible';
import { hashSecret } from '../auth/secrets.ts';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { clientKey } from './client-key.ts';
import { countedState, openCounters, secondsLeft } from './counters.ts';
import { policy, type Policy } from './policies.ts';

/** What a sign-in attempt took from its limits; given back when the attempt succeeds. */
export interface LoginAttempt {
  succeeded(): Promise<void>;
}

export interface LoginLimiter {
  /**
   * Counts an attempt to prove a password for `email` from `ip`, before the password is checked:
   * past a limit it throws 429 `rate_limited` (Retry-After set on `reply`), however right the
   * password. `knownDevice` is the id of a device that has signed in as this person before
   * (src/staff/devices.ts): its attempts are limited per device instead of per account.
   */
  attempt(email: string, ip: string, reply: FastifyReply, knownDevice?: string | null): Promise<LoginAttempt>;
  close(): void;
}

/** A count that never refuses: the account's failures are counted, and the delay decides. */
const UNLIMITED = 2 ** 31 - 1;

/**
 * Failed staff sign-ins, in the same counters as the request limits (in process, or in Redis shared
 * by every instance, exact). Every attempt takes its counts before the (slow, scrypt) password
 * check, so parallel guesses cannot slip past a limit; a success gives them back, so only failures
 * add up.
 *
 * - Per client (clientKey: an IPv6 client is its /64, as for every other limit): a number per
 *   window, then 429 until the window ends. This is what stops password spraying, many accounts
 *   guessed from one client.
 * - Per account: the first failures are free; past them each guess waits twice as long as the one
 *   before (1 s, 2 s, 4 s…, at most the window), held by a key that one attempt at a time takes.
 *   So guessing one account from many addresses slows down fast, while its owner is kept out for
 *   seconds to minutes, never a fixed quarter of an hour from the first wrong guess.
 * - Per known device instead of per account: the person's own browser is not held by what others
 *   guess, and a guesser holding that browser's cookie gets the free failures only.
 *
 * Accounts are counted by the address's hash: Redis never holds staff email addresses.
 */
export async function openLoginLimiter(config: Config, log: FastifyBaseLogger): Promise<LoginLimiter> {
  const { perAccount, perIp, windowSeconds } = config.loginLimits;
  const perAddress = perIp > 0 ? policy('login-ip', perIp, windowSeconds, false) : null;
  const accountFailures = perAccount > 0 ? policy('login-account', UNLIMITED, windowSeconds, false) : null;
  const perDevice = perAccount > 0 ? policy('login-device', perAccount, windowSeconds, false) : null;
  const delayOf = (seconds: number) => policy('login-delay', 1, seconds, false);
  const policies = [perAddress, accountFailures, perDevice, accountFailures && delayOf(1)].filter((p): p is Policy => p !== null);
  const counters = await openCounters(config, policies, log);

  const take = (counted: Policy, subject: string) => countedState(counters, counted, subject, log, 'sign-in limit');
  const giveBack = async (counted: Policy, subject: string) => {
    try {
      await counters.giveBack(counted, subject);
    } catch (err) {
      log.error({ err }, 'sign-in limit refund failed');
    }
  };
  const refuse = (reply: FastifyReply, state: RateLimiterRes, what: string): never => {
    const seconds = secondsLeft(state);
    reply.header('retry-after', seconds);
    throw new AppError('rate_limited', `Too many failed sign-ins ${what}; retry in ${seconds} s`);
  };

  return {
    async attempt(email, ip, reply, knownDevice = null) {
      const taken: Array<[Policy, string]> = [];
      const counted = async (limit: Policy, subject: string) => {
        const state = await take(limit, subject);
        taken.push([limit, subject]);
        return state;
      };
      const givenBack = () => Promise.all(taken.map(([limit, subject]) => giveBack(limit, subject))).then(() => undefined);

      const client = perAddress && (await counted(perAddress, clientKey(ip)));
      if (client && client.consumedPoints > perAddress!.limit) refuse(reply, client, 'from this address');
      if (knownDevice !== null && perDevice) {
        const device = await counted(perDevice, knownDevice);
        if (device && device.consumedPoints > perDevice.limit) refuse(reply, device, 'from this device');
      } else if (accountFailures) {
        const account = hashSecret(email);
        const failures = await counted(accountFailures, account);
        const past = failures ? failures.consumedPoints - perAccount : 0;
        if (past > 0) {
          const delay = delayOf(Math.min(2 ** (past - 1), windowSeconds));
          const hold = await counted(delay, account);
          if (hold && hold.consumedPoints > 1) {
            // Held: this attempt checks no password, so it does not count as a failure (nor lengthen the wait).
            // The hold's own count is kept: Redis counters refuse it locally from now on, uncounted there.
            await giveBack(accountFailures, account);
            refuse(reply, hold, 'for this account');
          }
        }
      }
      return { succeeded: givenBack };
    },
    close: () => counters.close(),
  };
}
