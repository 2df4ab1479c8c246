/** How often a reader is mailed of their notifications: a mail per event, a daily or weekly digest, or none. */
export const READER_MAIL_FREQUENCIES = ['instant', 'daily', 'weekly', 'off'] as const;
export type ReaderMailFrequency = (typeof READER_MAIL_FREQUENCIES)[number];

/** How often a staff member gets their moderation mails: as comments wait, or one digest a day. */
export const STAFF_MAIL_FREQUENCIES = ['instant', 'daily'] as const;
export type StaffMailFrequency = (typeof STAFF_MAIL_FREQUENCIES)[number];

/** The local hour digests go out at: a reader's or a staff member's morning. */
export const DIGEST_HOUR = 8;

/** Whether the runtime knows an IANA time zone name (Intl throws a RangeError for one it does not). */
export function knownTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock date and time of an instant in a time zone, as UTC milliseconds of the same numbers. */
function wallClock(instant: number, timeZone: string): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' })
      .formatToParts(instant)
      .map((part) => [part.type, Number(part.value)]),
  );
  return Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
}

/**
 * The instant a wall-clock time (given as UTC milliseconds of its numbers) happens in a time zone:
 * its offset read at a first guess, then again at the answer, which settles it across a change of
 * offset. A time a spring-forward skips comes out an hour later, as clocks show it.
 */
function instantOf(wall: number, timeZone: string): number {
  const guess = wall - (wallClock(wall, timeZone) - wall);
  return wall - (wallClock(guess, timeZone) - guess);
}

const DAY_MS = 24 * 3600_000;

/**
 * When the next digest after `after` is due: DIGEST_HOUR:00 in the time zone (UTC when none), the
 * next day it comes for `daily`, the next Monday for `weekly`.
 */
export function nextDigestAt(frequency: 'daily' | 'weekly', timeZone: string | null, after: Date): string {
  const zone = timeZone ?? 'UTC';
  const local = new Date(wallClock(after.getTime(), zone));
  const today = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate(), DIGEST_HOUR);
  for (let day = 0; day <= 8; day++) {
    const wall = today + day * DAY_MS;
    if (frequency === 'weekly' && new Date(wall).getUTCDay() !== 1) continue;
    const at = instantOf(wall, zone);
    if (at > after.getTime()) return new Date(at).toISOString();
  }
  throw new Error('unreachable: a Monday comes within eight days');
}

/** When a digest of this frequency is next due from now, or null for a frequency that has none. */
export function digestDueAt(frequency: string, timeZone: string | null, now: Date): string | null {
  return frequency === 'daily' || frequency === 'weekly' ? nextDigestAt(frequency, timeZone, now) : null;
}
