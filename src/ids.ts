import { randomBytes, randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';
import { v7 as uuidv7 } from 'uuid';

export type IdPrefix =
  | 'acct' | 'cmt' | 'usr' | 'key' | 'del' | 'evt' | 'ban' | 'mod' | 'sess' | 'thr' | 'note' | 'sso'
  // Staff (migration 0012): people, their sessions, invites, reset, setup and address links, audit entries.
  | 'stf' | 'sts' | 'inv' | 'rst' | 'stp' | 'vfy' | 'aud'
  // Mail (migration 0016): readers' addresses, queued mails.
  | 'mad' | 'mail'
  // Import jobs (migration 0018).
  | 'imp'
  // Reader accounts (migration 0030): identity providers, readers' identities, sign-in codes.
  | 'idp' | 'rid' | 'sic'
  // Rich comments (migration 0032): a comment's earlier versions.
  | 'rev'
  // Notifications (migration 0037): follows, notifications, fan-out jobs.
  | 'fol' | 'ntf' | 'njb'
  // Chat alerts (migration 0038).
  | 'alr'
  // Contested decisions (migration 0039).
  | 'dcn';

/**
 * ULID's default source draws from the OS once per character; drawing 4 KiB at a time is as random
 * and took a tenth of the time of posting a comment. A byte / 256 gives ULID's 32 symbols evenly.
 */
const pool = Buffer.alloc(4096);
let used = pool.length;
function pooledRandom(): number {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  return pool[used++] / 256;
}

const nextUlid = monotonicFactory(pooledRandom);

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
