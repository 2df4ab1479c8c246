import { calculatePKCECodeChallenge } from 'openid-client';
import { issuerOf } from './kinds.ts';
import { messageOf, PROVIDER_TIMEOUT_MS, signInRefused, type ProviderCheck, type ProviderClaims, type SignInChecks } from './protocol.ts';
import type { IdentityProvider } from './service.ts';

/**
 * GitHub signs in with OAuth 2 (no OpenID Connect): a code exchanged with PKCE for an access token,
 * then the user API for who they are and the emails API for their primary verified address.
 * github.com's API lives on its own host; GitHub Enterprise Server's under /api/v3 of the server.
 */

const SCOPE = 'read:user user:email';
const GITHUB_COM = 'https://github.com';

function endpoints(provider: IdentityProvider) {
  const base = issuerOf(provider);
  return {
    authorize: `${base}/login/oauth/authorize`,
    token: `${base}/login/oauth/access_token`,
    api: base === GITHUB_COM ? 'https://api.github.com' : `${base}/api/v3`,
  };
}

/** GitHub's API refuses requests without a User-Agent. */
const HEADERS = { accept: 'application/vnd.github+json', 'user-agent': 'Parley', 'x-github-api-version': '2022-11-28' };

export async function githubAuthorizationUrl(provider: IdentityProvider, checks: SignInChecks): Promise<URL> {
  const url = new URL(endpoints(provider).authorize);
  url.search = new URLSearchParams({
    client_id: provider.client_id,
    redirect_uri: checks.redirectUri,
    scope: SCOPE,
    state: checks.state,
    code_challenge: await calculatePKCECodeChallenge(checks.codeVerifier),
    code_challenge_method: 'S256',
    allow_signup: 'true',
  }).toString();
  return url;
}

async function json(response: Response, what: string): Promise<any> {
  if (!response.ok) throw new Error(`${what} answered ${response.status}`);
  try {
    return await response.json();
  } catch {
    throw new Error(`${what} answered something other than JSON`);
  }
}

export async function githubClaims(provider: IdentityProvider, code: string, checks: SignInChecks): Promise<ProviderClaims> {
  const { token, api } = endpoints(provider);
  try {
    const exchange = await json(
      await fetch(token, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Parley' },
        body: new URLSearchParams({
          client_id: provider.client_id,
          client_secret: provider.client_secret,
          code,
          redirect_uri: checks.redirectUri,
          code_verifier: checks.codeVerifier,
        }),
        signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
      }),
      'The token endpoint',
    );
    // GitHub answers a refused code with 200 and an error in the body.
    if (typeof exchange.error === 'string') throw new Error(`${exchange.error}${exchange.error_description ? `: ${exchange.error_description}` : ''}`);
    if (typeof exchange.access_token !== 'string') throw new Error('The token endpoint answered no access token');
    const auth = { ...HEADERS, authorization: `Bearer ${exchange.access_token}` };
    const user = await json(await fetch(`${api}/user`, { headers: auth, signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) }), 'The user API');
    if (typeof user.id !== 'number' && typeof user.id !== 'string') throw new Error('The user API answered no user id');
    const emails = await json(await fetch(`${api}/user/emails`, { headers: auth, signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) }), 'The emails API');
    const primary = Array.isArray(emails) ? emails.find((entry) => entry?.primary === true && entry?.verified === true && typeof entry.email === 'string') : undefined;
    const name = typeof user.name === 'string' && user.name !== '' ? user.name : typeof user.login === 'string' ? user.login : null;
    const avatar = typeof user.avatar_url === 'string' && /^https:\/\/\S{1,2000}$/.test(user.avatar_url) ? user.avatar_url : null;
    return {
      // The numeric id: a login can be renamed and then taken by someone else.
      subject: String(user.id),
      email: primary ? (primary.email as string).toLowerCase() : null,
      emailVerified: primary !== undefined,
      name,
      pictureUrl: avatar,
    };
  } catch (error) {
    throw signInRefused(`${provider.name}'s answer was refused: ${messageOf(error)}`);
  }
}

/** The authorization page answers for the client id, and the API answers (401 without a token, as GitHub's does). */
export async function checkGithub(provider: IdentityProvider): Promise<ProviderCheck> {
  const { authorize, api } = endpoints(provider);
  try {
    const page = await fetch(`${authorize}?${new URLSearchParams({ client_id: provider.client_id })}`, { redirect: 'manual', signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
    if (page.status >= 400) return { ok: false, detail: `The authorization page ${authorize} answered ${page.status}` };
    const user = await fetch(`${api}/user`, { headers: HEADERS, signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
    if (user.status !== 401 && !user.ok) return { ok: false, detail: `The API at ${api} answered ${user.status} for /user` };
    return { ok: true, detail: `The authorization page ${authorize} and the API at ${api} answered. The client id and secret are checked at the first sign-in.` };
  } catch (error) {
    return { ok: false, detail: `${authorize} could not be reached: ${messageOf(error)}` };
  }
}
