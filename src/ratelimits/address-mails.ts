import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import { rateLimited } from '../errors.ts';
import { openCounters, secondsPastLimit } from './counters.ts';
import { policy } from './policies.ts';

export interface AddressMailLimiter {
  /** Counts one new confirmation link `staffId` asks for; past a limit it throws 429 `rate_limited` with the seconds to wait. */
  take(staffId: string): Promise<void>;
  close(): void;
}

/** The limits of new confirmation links a person asks for: enough to replace a lost mail, too few to flood a mailbox. */
export const ADDRESS_MAILS_PER_MINUTE = 1;
export const ADDRESS_MAILS_PER_HOUR = 5;

/**
 * A staff member may ask for a new link to confirm their address (src/staff/addresses.ts): counted
 * per person, in the same counters as the request limits (in process, or in Redis shared by every
 * instance). A counter that cannot be reached lets the mail through, logged.
 */
export async function openAddressMailLimiter(config: Config, log: FastifyBaseLogger): Promise<AddressMailLimiter> {
  const perMinute = policy('address-mails-minute', ADDRESS_MAILS_PER_MINUTE, 60, false);
  const perHour = policy('address-mails-hour', ADDRESS_MAILS_PER_HOUR, 3600, false);
  const counters = await openCounters(config, [perMinute, perHour], log);
  const what = 'confirmation link limit';
  return {
    async take(staffId) {
      const minuteWait = await secondsPastLimit(counters, perMinute, staffId, log, what);
      if (minuteWait > 0) throw rateLimited(`A new confirmation link was mailed less than a minute ago; ask again in ${minuteWait} s`, minuteWait);
      const hourWait = await secondsPastLimit(counters, perHour, staffId, log, what);
      if (hourWait > 0) throw rateLimited(`At most ${ADDRESS_MAILS_PER_HOUR} new confirmation links are mailed in an hour; ask again in ${hourWait} s`, hourWait);
    },
    close: () => counters.close(),
  };
}
