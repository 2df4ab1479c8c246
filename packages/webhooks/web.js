// The same check over Web Crypto, for runtimes without node:crypto (Cloudflare Workers, Deno, Bun,
// Vercel's edge functions); Node 18 and later have it too. Web Crypto only answers asynchronously.

const PREFIX = 'sha256=';
const encoder = new TextEncoder();

/** @param {string | Uint8Array | ArrayBuffer} data */
const bytesOf = (data) => (typeof data === 'string' ? encoder.encode(data) : data);

/** @param {string} secret @param {KeyUsage} usage */
const keyOf = (secret, usage) => crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [usage]);

/**
 * @param {string | Uint8Array | ArrayBuffer} rawBody
 * @param {string} secret
 * @returns {Promise<string>}
 */
export async function signatureOf(rawBody, secret) {
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await keyOf(secret, 'sign'), bytesOf(rawBody)));
  return PREFIX + Array.from(mac, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * Resolves to true when `header` is the signature of `rawBody` under `secret`. `crypto.subtle.verify`
 * compares the MACs in constant time.
 *
 * @param {string | Uint8Array | ArrayBuffer} rawBody
 * @param {string} secret
 * @param {string | null | undefined} header
 * @returns {Promise<boolean>}
 */
export async function verifyWebhookSignature(rawBody, secret, header) {
  if (typeof header !== 'string' || !/^sha256=[0-9a-f]{64}$/.test(header)) return false;
  const mac = new Uint8Array(32);
  for (let i = 0; i < 32; i++) mac[i] = parseInt(header.slice(PREFIX.length + 2 * i, PREFIX.length + 2 * i + 2), 16);
  return crypto.subtle.verify('HMAC', await keyOf(secret, 'verify'), mac, bytesOf(rawBody));
}
