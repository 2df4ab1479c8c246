import { createHmac, randomBytes } from 'node:crypto';
import { invalid } from '../errors.ts';

/** The prefix of generated secrets, as the Standard Webhooks libraries expect. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** `whsec_<base64 of 32 random bytes>`: the form the Standard Webhooks and Svix libraries expect. */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** Standard (not URL-safe) base64, padded: what those libraries decode after `whsec_`. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The HMAC key of the Standard Webhooks signature. A `whsec_<base64>` secret is keyed with the decoded
 * bytes, as those libraries decode it; any other secret (a UUID after `whsec_`, say) with its own
 * bytes as they are, which the libraries accept with their `raw` format option.
 */
function standardKey(secret: string): Buffer {
  const encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  return secret.startsWith(WEBHOOK_SECRET_PREFIX) && BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : Buffer.from(secret, 'utf8');
}

/** `webhook-signature` of the Standard Webhooks specification: `v1,<base64 HMAC of id.timestamp.body>`. */
export function standardSignature(secret: string, deliveryId: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', standardKey(secret)).update(`${deliveryId}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * A secret the site owner chose: 16 to 200 printable ASCII characters (0x21-0x7E: no spaces, no
 * controls, nothing that changes with a text encoding), long enough to resist guessing. Its form is
 * otherwise free; the specification keys the HMAC with the secret as given.
 */
export function cleanWebhookSecret(secret: string): string {
  if (!/^[\x21-\x7e]{16,200}$/.test(secret)) {
    throw invalid('body/webhook_secret', 'must be 16 to 200 printable ASCII characters (0x21-0x7E, no spaces)');
  }
  return secret;
}
