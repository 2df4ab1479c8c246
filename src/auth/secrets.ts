import { hash, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '../ids.ts';

/**
 * API keys and session tokens are 190+ bits of randomness, so a fast hash is enough to make a stolen
 * database useless (no dictionary to try). Only the hash is stored; lookups go through its index, and
 * the final comparison is constant-time.
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

export function newApiKey(): string {
  return `sk_${randomBase62(40)}`;
}

export function newSessionToken(): string {
  return `sess_${randomBase62(40)}`;
}

export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
