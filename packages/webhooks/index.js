import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Parley signs each delivery with `X-Service-Signature: sha256=<hex HMAC-SHA256 of the raw body,
 * keyed with the webhook secret>`. Parley computes its signatures with this function too, so the
 * sender and the receivers cannot disagree.
 *
 * @param {string | Uint8Array} rawBody
 * @param {string} secret
 * @returns {string}
 */
export function signatureOf(rawBody, secret) {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

/**
 * True when `header` is the signature of `rawBody` (the bytes as received, before any JSON parsing)
 * under `secret`. The length is checked first, then the bytes are compared in constant time.
 *
 * @param {string | Uint8Array} rawBody
 * @param {string} secret
 * @param {string | null | undefined} header
 * @returns {boolean}
 */
export function verifyWebhookSignature(rawBody, secret, header) {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(signatureOf(rawBody, secret));
  const received = Buffer.from(header);
  return received.length === expected.length && timingSafeEqual(received, expected);
}
