import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The receiver's side of Parley's webhook signature, importable as `parley/webhooks`:
 * `X-Service-Signature: sha256=<hex HMAC-SHA256 of the raw body, keyed with the webhook secret>`.
 */
export function signatureOf(rawBody: string | Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

/**
 * True when `header` is the signature of `rawBody` (the bytes as received, before any JSON parsing)
 * under `secret`. The length is checked first, then the bytes are compared in constant time.
 */
export function verifyWebhookSignature(rawBody: string | Buffer, secret: string, header: string | null | undefined): boolean {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(signatureOf(rawBody, secret));
  const received = Buffer.from(header);
  return received.length === expected.length && timingSafeEqual(received, expected);
}
