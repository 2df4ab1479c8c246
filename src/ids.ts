import { randomBytes } from 'node:crypto';
import { monotonicFactory } from 'ulid';
import { v7 as uuidv7 } from 'uuid';

export type IdPrefix = 'acct' | 'cmt' | 'usr' | 'key' | 'del' | 'evt' | 'ban' | 'mod' | 'sess' | 'thr';

const nextUlid = monotonicFactory();

/** Time-sortable ids: `<prefix>_<ULID>`; sites embed a (v7, time-ordered) UUID as the contract asks. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid().toLowerCase()}`;
}

export function newSiteId(): string {
  return `site_${uuidv7()}`;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Unbiased base62 from rejection sampling: 62 * 4 = 248 is the largest multiple below 256. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}
