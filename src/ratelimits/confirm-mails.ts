import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import { rateLimited } from '../errors.ts';
import { openCounters, secondsPastLimit } from './counters.ts';
import { policy, type Policy } from './policies.ts';

export interface ConfirmMailLimiter {
  /**
   * Counts one confirmation mail that `reader` (a guest's client key, or a session's user id) asks
   * for on `siteId`: the reader's limit first, so one reader past theirs spends nothing of the
   * site's. Past either it throws 429 `rate_limited` with the seconds to wait.
   */
  take(siteId: string, reader: string): Promise<void>;
  close(): void;
}

/**
 * Confirmation mails go to addresses a reader merely types, from the operator's address: they are
 * counted per reader and per site, in the same counters as the request limits (in process, or in
 * Redis shared by every instance). A counter that cannot be reached lets the mail through, logged.
 */
export async function openConfirmMailLimiter(config: Config, log: FastifyBaseLogger): Promise<ConfirmMailLimiter> {
  const { confirmMailsPerReader, confirmMailsPerSite, commentWindowSeconds } = config.rateLimits;
  const perReader = confirmMailsPerReader > 0 ? policy('confirm-mails-reader', confirmMailsPerReader, commentWindowSeconds, false) : null;
  const perSite = confirmMailsPerSite > 0 ? policy('confirm-mails-site', confirmMailsPerSite, commentWindowSeconds, false) : null;
  const counters = await openCounters(config, [perReader, perSite].filter((p): p is Policy => p !== null), log);

  const take = (counted: Policy, subject: string) => secondsPastLimit(counters, counted, subject, log, 'confirmation mail limit');
  return {
    async take(siteId, reader) {
      const readerWait = perReader ? await take(perReader, reader) : 0;
      if (readerWait > 0) throw rateLimited(`Too many confirmation mails asked for by this reader; retry in ${readerWait} s, or post without "Email me replies"`, readerWait);
      const siteWait = perSite ? await take(perSite, siteId) : 0;
      if (siteWait > 0) throw rateLimited(`Too many confirmation mails asked for on this site; retry in ${siteWait} s, or post without "Email me replies"`, siteWait);
    },
    close: () => counters.close(),
  };
}
