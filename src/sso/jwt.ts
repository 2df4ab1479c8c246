import { compactVerify, decodeJwt, decodeProtectedHeader, errors } from 'jose';

/**
 * The one JWT form Parley accepts: JWS compact serialisation, HS256, a `kid` in the header. The
 * algorithm is the server's, never the token's: anything but HS256 (`none` included) is refused
 * before a key is looked at. Decoding and the signature check are jose's; the claims are checked
 * by the SSO service, which names each refusal's reason for the site's developers.
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
  /** Whether the token was signed with this secret. */
  signedWith(secret: string): Promise<boolean>;
}

export function readToken(token: string): SignedToken {
  let header: ReturnType<typeof decodeProtectedHeader>;
  let payload: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(token);
    payload = decodeJwt(token);
  } catch (error) {
    throw new TokenError('malformed', `The token is not a JWT (three base64url parts: a JSON header, a JSON object payload, a signature): ${(error as Error).message}`);
  }
  if (header.alg !== 'HS256') throw new TokenError('unsupported_algorithm', `Tokens must be signed with HS256; this one says ${JSON.stringify(header.alg ?? null)}`);
  if (typeof header.kid !== 'string' || header.kid === '') throw new TokenError('missing_kid', "The token's header has no kid: set it to the id of the SSO secret that signed it");
  return {
    kid: header.kid,
    payload,
    signedWith: async (secret) => {
      try {
        await compactVerify(token, new TextEncoder().encode(secret), { algorithms: ['HS256'] });
        return true;
      } catch (error) {
        if (error instanceof errors.JWSSignatureVerificationFailed) return false;
        throw new TokenError('malformed', `The token's signature cannot be checked: ${(error as Error).message}`);
      }
    },
  };
}
