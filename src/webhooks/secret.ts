import { createHmac, randomBytes } from 'node:crypto';
import { invalid } from '../errors.ts';

const PREFIX = 'whsec_';

/** `whsec_<base64 of 32 random bytes>`: the form the Standard Webhooks and Svix libraries expect. */
export function newWebhookSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

/**
 * The HMAC key of the Standard Webhooks signature: the base64-decoded part after `whsec_`, as those
 * libraries decode it; a secret of another form (set by the site owner) is used as its UTF-8 bytes,
 * which the libraries accept with their `raw` format option.
 */
function standardKey(secret: string): Buffer {
  return secret.startsWith(PREFIX) ? Buffer.from(secret.slice(PREFIX.length), 'base64') : Buffer.from(secret, 'utf8');
}

/** `webhook-signature` of the Standard Webhooks specification: `v1,<base64 HMAC of id.timestamp.body>`. */
export function standardSignature(secret: string, deliveryId: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', standardKey(secret)).update(`${deliveryId}.${timestamp}.${body}`).digest('base64')}`;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A secret the site owner chose: printable, long enough to resist guessing, well-formed if `whsec_`. */
export function cleanWebhookSecret(secret: string): string {
  const path = 'body/webhook_secret';
  if (!/^[\x21-\x7e]{16,200}$/.test(secret)) throw invalid(path, 'must be 16 to 200 printable characters without spaces');
  if (secret.startsWith(PREFIX)) {
    const encoded = secret.slice(PREFIX.length);
    if (!BASE64.test(encoded) || encoded.length % 4 !== 0 || Buffer.from(encoded, 'base64').length < 24) {
      throw invalid(path, 'a whsec_ secret must be whsec_ followed by the base64 of at least 24 bytes');
    }
  }
  return secret;
}
