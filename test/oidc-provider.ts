import { createServer as createNetServer } from 'node:net';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';

/** What the provider says about an account; `sub` is the login typed on its sign-in form. */
export interface TestAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
  preferred_username?: string;
  picture?: string;
}

export interface TestOidcProvider {
  /** http://127.0.0.1:<port>: the `issuer` to give Parley. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Accounts by login; a login not in it signs in with no claims but `sub`. Tests set them as they go. */
  accounts: Map<string, TestAccount>;
  /**
   * Plays the reader's browser at the provider over HTTP, with a cookie jar of its own: from the
   * authorization URL (the Location of Parley's start) through the provider's sign-in form with
   * `login` to the URL the provider sends the reader back to (Parley's callback with code and state).
   * `abort` leaves through the form's "cancel" instead (the provider answers error=access_denied).
   */
  signIn(authorizationUrl: string, login: string, options?: { abort?: boolean }): Promise<URL>;
  close(): Promise<void>;
}

const SCOPES = { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username', 'picture'] };

/**
 * A real OpenID provider (`oidc-provider`, a certified implementation) on 127.0.0.1 at a free port,
 * with one confidential client whose redirect URI is Parley's callback, PKCE required and no consent
 * screen (the grant is given at sign-in). Its sign-in form is the library's development form: any
 * login and any password; a browser (Chromium tests) fills `input[name=login]` and
 * `input[name=password]` and presses the submit button.
 */
export async function startOidcProvider(options: { redirectUri: string; clientId?: string; clientSecret?: string }): Promise<TestOidcProvider> {
  const clientId = options.clientId ?? 'parley-test-client';
  const clientSecret = options.clientSecret ?? 'parley-test-client-secret-0123456789';
  const accounts = new Map<string, TestAccount>();
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  const server = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' }] },
    cookies: { keys: ['oidc-provider-test-cookie-key'] },
    pkce: { required: () => true },
    ttl: { AuthorizationCode: 60, AccessToken: 600, IdToken: 600, Grant: 600, Session: 600, Interaction: 600 },
    claims: SCOPES,
    features: { devInteractions: { enabled: true } },
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id, ...accounts.get(id) }) }),
    // No consent screen: the test client is granted what it asks for once the reader signs in.
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const grantId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  });
  const callback = provider.callback();
  handle = (req, res) => void callback(req, res);

  async function signIn(authorizationUrl: string, login: string, { abort = false } = {}): Promise<URL> {
    const jar = new Map<string, string>();
    const send = async (url: URL, init: RequestInit = {}) => {
      const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
      const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), ...(cookie && { cookie }) } });
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const at = pair.indexOf('=');
        jar.set(pair.slice(0, at), pair.slice(at + 1));
      }
      return response;
    };
    let url = new URL(authorizationUrl);
    for (let hop = 0; hop < 10; hop += 1) {
      if (url.origin !== issuer) return url;
      let response = await send(url);
      if (response.status === 200 && url.pathname.startsWith('/interaction/')) {
        const html = await response.text();
        const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
        if (!action) throw new Error(`the provider's sign-in page has no form: ${html.slice(0, 300)}`);
        response = abort
          ? await send(new URL(`${url.pathname}/abort`, issuer))
          : await send(new URL(action, issuer), {
              method: 'POST',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: new URLSearchParams({ prompt: 'login', login, password: 'any' }).toString(),
            });
      }
      const location = response.headers.get('location');
      if (!location) throw new Error(`the provider answered ${response.status} at ${url.pathname}: ${(await response.text()).slice(0, 300)}`);
      url = new URL(location, url);
    }
    throw new Error('the provider redirected more than 10 times');
  }

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    signIn,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A free port on 127.0.0.1, for a Parley whose address must be known before it starts: its
 * PARLEY_PUBLIC_URL is the callback URL the provider's client is registered with.
 */
export async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
