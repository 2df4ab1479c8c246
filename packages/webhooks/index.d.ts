/** `sha256=<hex HMAC-SHA256 of rawBody keyed with secret>`, as Parley sends it in `X-Service-Signature`. */
export declare function signatureOf(rawBody: string | Uint8Array, secret: string): string;

/**
 * True when `header` (the `X-Service-Signature` value) is the signature of `rawBody`, the bytes as
 * received before any JSON parsing, under the webhook's `secret`. Compares in constant time.
 */
export declare function verifyWebhookSignature(rawBody: string | Uint8Array, secret: string, header: string | null | undefined): boolean;
