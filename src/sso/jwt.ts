import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The one JWT form Parley accepts: JWS compact serialisation, HS256, a `kid` in the header. The
 * algorithm is the server's, never the token's: anything but HS256 (`none` included) is refused
 * before a key is looked at. The signature is compared in constant time.
 */
export class TokenError extends Error {
  constructor(
    readonly reason: string,
    detail: string,
  ) {
    super(detail);
  }
}

export interface SignedToken {
  kid: string;
  payload: Record<string, unknown>;
  /** Checks the signature with this secret. */
  signedWith(secret: string): boolean;
}

function decodePart(part: string, what: string): Record<string, unknown> {
  if (!/^[A-Za-z0-9_-]+$/.test(part)) throw new TokenError('malformed', `The token's ${what} is not base64url`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw new TokenError('malformed', `The token's ${what} is not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new TokenError('malformed', `The token's ${what} is not a JSON object`);
  return parsed as Record<string, unknown>;
}

export function readToken(token: string): SignedToken {
  const parts = token.split('.');
  if (parts.length !== 3) throw new TokenError('malformed', 'The token is not a JWT (three base64url parts separated by dots)');
  const [headerPart, payloadPart, signaturePart] = parts;
  const header = decodePart(headerPart, 'header');
  if (header.alg !== 'HS256') throw new TokenError('unsupported_algorithm', `Tokens must be signed with HS256; this one says ${JSON.stringify(header.alg ?? null)}`);
  if (typeof header.kid !== 'string' || header.kid === '') throw new TokenError('missing_kid', "The token's header has no kid: set it to the id of the SSO secret that signed it");
  const payload = decodePart(payloadPart, 'payload');
  const signature = /^[A-Za-z0-9_-]*$/.test(signaturePart) ? Buffer.from(signaturePart, 'base64url') : Buffer.alloc(0);
  return {
    kid: header.kid,
    payload,
    signedWith: (secret) => {
      const expected = createHmac('sha256', secret).update(`${headerPart}.${payloadPart}`).digest();
      return signature.length === expected.length && timingSafeEqual(signature, expected);
    },
  };
}
