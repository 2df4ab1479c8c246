/** `sha256=<hex HMAC-SHA256 of rawBody keyed with secret>`, computed with Web Crypto. */
export declare function signatureOf(rawBody: string | Uint8Array | ArrayBuffer, secret: string): Promise<string>;

/**
 * Resolves to true when `header` (the `X-Service-Signature` value) is the signature of `rawBody`, the
 * bytes as received, under the webhook's `secret`. Web Crypto only: runs on edge runtimes and in Node.
 */
export declare function verifyWebhookSignature(rawBody: string | Uint8Array | ArrayBuffer, secret: string, header: string | null | undefined): Promise<boolean>;
