import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { hashSecret, sameSecret } from '../../auth/secrets.ts';
import { randomBase62 } from '../../ids.ts';

/** A sign-in code and its link work once, for this long. */
export const SIGN_IN_CODE_LIFETIME_MS = 10 * 60_000;
/** The wrong codes that end a code: the reader then asks for a new one. */
export const MAX_WRONG_CODES = 5;

/** Six digits, uniformly drawn: what a reader types. */
export function newSignInCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/** The link's secret: 238 bits, so a fast hash of it is enough in the database (as for session tokens). */
export function newLinkToken(): string {
  return `sil_${randomBase62(40)}`;
}

export const linkTokenHash = hashSecret;

/** What a code was mailed for: a code's hash holds only for its own row, site and address. */
export interface CodeOwner {
  id: string;
  siteId: string;
  email: string;
}

function mac(salt: string, owner: CodeOwner, code: string): string {
  return createHmac('sha256', Buffer.from(salt, 'base64url')).update(`sign-in code\n${owner.id}\n${owner.siteId}\n${owner.email}\n${code}`).digest('base64url');
}

/**
 * `<salt>.<HMAC-SHA256>` of the code, keyed with a random salt of the row's own and bound to its
 * row, site and address. A plain SHA-256 of six digits would be one table of a million hashes that
 * reads every stored code at once; keyed per row, each must be searched by itself, and a hash copied
 * to another row or address proves nothing. It cannot stop someone who reads the database from
 * searching one row's million codes: only a secret kept outside the database could, and Parley has
 * none every instance shares. A code lives ten minutes, and the queued mail holds it in clear until
 * it is sent (then wiped) anyway; what stops guessing through the API is MAX_WRONG_CODES and the
 * per-client limit.
 */
export function signInCodeHash(owner: CodeOwner, code: string): string {
  const salt = randomBytes(16).toString('base64url');
  return `${salt}.${mac(salt, owner, code)}`;
}

/** Whether `code` is the one hashed in `stored`, compared in constant time. */
export function isSignInCode(stored: string, owner: CodeOwner, code: string): boolean {
  const [salt, expected] = stored.split('.');
  return expected !== undefined && sameSecret(mac(salt, owner, code), expected);
}
