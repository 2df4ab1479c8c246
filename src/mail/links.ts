import { createHmac } from 'node:crypto';
import { sameSecret } from '../auth/secrets.ts';
import { randomBase62 } from '../ids.ts';

export const UNSUBSCRIBE_SCOPES = ['comment', 'thread', 'mentions', 'follow', 'notifications', 'all'] as const;
export type UnsubscribeScope = (typeof UNSUBSCRIBE_SCOPES)[number];

/** A confirmation link works once, for this long. */
export const CONFIRM_LIFETIME_MS = 24 * 3600_000;

export function newConfirmToken(): string {
  return `mc_${randomBase62(40)}`;
}

export function newLinkKey(): string {
  return randomBase62(43);
}

/**
 * What an unsubscribe link names: an address, a scope, and the comment or thread id, the follow's id
 * for `follow`, the reader's user id for `mentions` and `notifications` (none for `all`).
 */
export interface UnsubscribeTarget {
  address: string;
  scope: UnsubscribeScope;
  target: string;
}

/** HMAC-SHA256 with the address's own key: a link cannot be made for another address or scope. */
function signatureOf(linkKey: string, { address, scope, target }: UnsubscribeTarget): string {
  return createHmac('sha256', linkKey).update(`unsubscribe\n${address}\n${scope}\n${target}`).digest('base64url');
}

export function signedUnsubscribe(linkKey: string, what: UnsubscribeTarget): string {
  return signatureOf(linkKey, what);
}

export function validSignature(linkKey: string, what: UnsubscribeTarget, signature: string): boolean {
  return sameSecret(signatureOf(linkKey, what), signature);
}

export function confirmUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/v1/mail/confirm?token=${token}`;
}

/** Works without signing in: GET shows a page that asks, POST (the page's button, or RFC 8058 one-click) does it. */
export function unsubscribeUrl(publicUrl: string, linkKey: string, what: UnsubscribeTarget): string {
  const query = new URLSearchParams({ address: what.address, scope: what.scope, target: what.target, sig: signedUnsubscribe(linkKey, what) });
  return `${publicUrl}/v1/mail/unsubscribe?${query}`;
}
