import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

export interface ScriptedIssuer {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /**
   * Claims the next ID tokens carry over the right ones (`aud`, `exp`, `nonce`…): what a certified
   * provider never issues, for the checks that must refuse it.
   */
  override: Record<string, unknown>;
  /** Signs `sub` in at once (no sign-in page): from the authorization URL to the callback URL. */
  approve(authorizationUrl: string, sub: string): Promise<URL>;
  close(): Promise<void>;
}

/**
 * An OpenID issuer on 127.0.0.1 whose ID tokens say what the test scripts: discovery, JWKS, an
 * authorization endpoint that approves at once and a token endpoint that checks the client secret
 * and PKCE, signing its ID tokens (RS256, jose) with `override` laid over the right claims.
 */
export async function startScriptedIssuer(): Promise<ScriptedIssuer> {
  const clientId = 'scripted-client';
  const clientSecret = 'scripted-client-secret-0123456789';
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const codes = new Map<string, { sub: string; nonce: string; challenge: string }>();
  const approvals = new Map<string, string>();
  const state = { override: {} as Record<string, unknown> };

  const server = createServer(async (request, response) => {
    const url = new URL(request.url!, issuer);
    const send = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/.well-known/openid-configuration') {
      return send(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      });
    }
    if (url.pathname === '/jwks') return send(200, { keys: [jwk] });
    if (url.pathname === '/authorize') {
      const sub = approvals.get(url.searchParams.get('state') ?? '');
      if (!sub || url.searchParams.get('client_id') !== clientId || url.searchParams.get('code_challenge_method') !== 'S256') return send(400, { error: 'invalid_request' });
      const code = randomBytes(10).toString('hex');
      codes.set(code, { sub, nonce: url.searchParams.get('nonce') ?? '', challenge: url.searchParams.get('code_challenge')! });
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.search = new URLSearchParams({ code, state: url.searchParams.get('state')! }).toString();
      return response.writeHead(302, { location: back.href }).end();
    }
    if (url.pathname === '/token' && request.method === 'POST') {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const form = new URLSearchParams(Buffer.concat(chunks).toString());
      const basic = Buffer.from((request.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
      const [id, secret] = basic ? basic.split(':').map(decodeURIComponent) : [form.get('client_id'), form.get('client_secret')];
      if (id !== clientId || secret !== clientSecret) return send(401, { error: 'invalid_client' });
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      if (!grant || createHash('sha256').update(form.get('code_verifier') ?? '').digest('base64url') !== grant.challenge) return send(400, { error: 'invalid_grant' });
      const now = Math.floor(Date.now() / 1000);
      const claims = { iss: issuer, sub: grant.sub, aud: clientId, nonce: grant.nonce, iat: now, exp: now + 600, email: `${grant.sub}@example.com`, email_verified: true, ...state.override };
      const idToken = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(privateKey);
      return send(200, { access_token: randomBytes(16).toString('hex'), token_type: 'Bearer', expires_in: 600, id_token: idToken });
    }
    send(404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function approve(authorizationUrl: string, sub: string): Promise<URL> {
    approvals.set(new URL(authorizationUrl).searchParams.get('state')!, sub);
    const answer = await fetch(authorizationUrl, { redirect: 'manual' });
    return new URL(answer.headers.get('location')!);
  }

  return {
    issuer,
    clientId,
    clientSecret,
    get override() {
      return state.override;
    },
    set override(value) {
      state.override = value;
    },
    approve,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
