import { ImportFileError } from './source.ts';

export interface UtcTime {
  iso: string;
  /** The source stated no zone; the time was read as UTC. */
  zoneless: boolean;
}

// 2019-07-19T12:35:49Z, 2019-07-19 12:35:49, 2020-01-01T10:00:00.123456789-05:00, +0530 or +05
const TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * A source's time in UTC with milliseconds. The zone the source states is applied (Z or an offset);
 * a time without one is UTC and flagged, so the report can say how many were read that way.
 */
export function toUtc(raw: string, where: string): UtcTime {
  const match = TIME.exec(raw.trim());
  if (!match) throw new ImportFileError(`${where}: "${raw.slice(0, 40)}" is not a date and time`);
  const [, y, mo, d, h, mi, s = '00', fraction = '', zone] = match;
  const ms = Number(fraction.padEnd(3, '0').slice(0, 3));
  let time = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms);
  const valid = new Date(time);
  if (Number.isNaN(time) || valid.getUTCDate() !== Number(d) || valid.getUTCMonth() !== Number(mo) - 1 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 60) {
    throw new ImportFileError(`${where}: "${raw.slice(0, 40)}" is not a valid date and time`);
  }
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    time -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0')) * 60_000;
  }
  return { iso: new Date(time).toISOString(), zoneless: !zone };
}

/** Seconds since the Unix epoch (a zone-free instant) in UTC. */
export function fromUnixSeconds(seconds: number, where: string): string {
  const time = new Date(Math.round(seconds * 1000));
  if (!Number.isFinite(seconds) || Number.isNaN(time.getTime())) throw new ImportFileError(`${where}: "${seconds}" is not a time`);
  return time.toISOString();
}
