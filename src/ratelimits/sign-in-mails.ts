import type { FastifyBaseLogger } from 'fastify';
import { hashSecret } from '../auth/secrets.ts';
import type { Config } from '../config.ts';
import { rateLimited } from '../errors.ts';
import { openCounters, secondsPastLimit } from './counters.ts';
import { policy, type Policy } from './policies.ts';

/** Wrong sign-in codes one client may try per window, across every code and address (guessing, not mistyping). */
export const WRONG_CODES_PER_CLIENT = 30;

/** A code being checked; given back to the client's count when it was right, so only wrong codes add up. */
export interface CodeAttempt {
  right(): Promise<void>;
}

export interface SignInLimiter {
  /**
   * Counts one sign-in mail that `client` (its clientKey) asks for to `email` on `siteId`; past a
   * limit it throws 429 `rate_limited` with the seconds to wait, and mails nothing.
   */
  mail(siteId: string, email: string, client: string): Promise<void>;
  /** Counts a code `client` tries, before it is checked, so parallel guesses cannot slip past; past the limit 429. */
  attempt(client: string): Promise<CodeAttempt>;
  close(): void;
}

/**
 * Sign-in codes go to addresses anyone may type, from the operator's address, so Parley must not
 * become a way to flood a mailbox; and a code is six digits, so guessing is counted too. In the same
 * counters as the request limits (in process, or in Redis shared by every instance); a counter that
 * cannot be reached lets the request through, logged.
 *
 * A mail counts first against the client that asks, then the address, then the site: a client past
 * its limit spends nothing of an address's or the site's budget (one client cannot keep more than a
 * few readers from signing in), and requests for one bombed address spend nothing of the site's.
 * The address is counted across sites, as its mailbox is one, and by its hash: Redis never holds
 * readers' addresses. Its 429 says no more than that codes were asked for that address lately, as
 * anyone can learn by asking; nothing in it depends on whether the address has an account.
 */
export async function openSignInLimiter(config: Config, log: FastifyBaseLogger): Promise<SignInLimiter> {
  const { signInMailsPerAddress, signInMailsPerClient, signInMailsPerSite, commentWindowSeconds } = config.rateLimits;
  const limit = (name: Parameters<typeof policy>[0], count: number) => (count > 0 ? policy(name, count, commentWindowSeconds, false) : null);
  const perClient = limit('sign-in-mails-client', signInMailsPerClient);
  const perAddress = limit('sign-in-mails-address', signInMailsPerAddress);
  const perSite = limit('sign-in-mails-site', signInMailsPerSite);
  const wrongCodes = limit('sign-in-codes-client', WRONG_CODES_PER_CLIENT);
  const counters = await openCounters(config, [perClient, perAddress, perSite, wrongCodes].filter((p): p is Policy => p !== null), log);
  const wait = (counted: Policy | null, subject: string) => (counted ? secondsPastLimit(counters, counted, subject, log, 'sign-in limit') : Promise.resolve(0));

  return {
    async mail(siteId, email, client) {
      const clientWait = await wait(perClient, client);
      if (clientWait > 0) throw rateLimited(`Too many sign-in codes were asked for from this network; retry in ${clientWait} s`, clientWait);
      const addressWait = await wait(perAddress, hashSecret(email));
      if (addressWait > 0) throw rateLimited(`Too many sign-in codes were asked for this address lately; use the last code mailed to it, or retry in ${addressWait} s`, addressWait);
      const siteWait = await wait(perSite, siteId);
      if (siteWait > 0) throw rateLimited(`Too many sign-in codes were asked for on this site; retry in ${siteWait} s`, siteWait);
    },
    async attempt(client) {
      const guessWait = await wait(wrongCodes, client);
      if (guessWait > 0) throw rateLimited(`Too many wrong sign-in codes from this network; retry in ${guessWait} s`, guessWait);
      return {
        right: async () => {
          if (!wrongCodes) return;
          try {
            await counters.giveBack(wrongCodes, client);
          } catch (err) {
            log.error({ err }, 'sign-in code limit refund failed');
          }
        },
      };
    },
    close: () => counters.close(),
  };
}
