import * as client from 'openid-client';
import { isLoopbackHttp, issuerOf } from './kinds.ts';
import { messageOf, PROVIDER_TIMEOUT_MS, signInRefused, type ProviderCheck, type ProviderClaims, type SignInChecks } from './protocol.ts';
import type { IdentityProvider } from './service.ts';

/** OpenID Connect sign-ins: `oidc` and the presets (google, gitlab, microsoft), through openid-client. */

const SCOPE = 'openid email profile';
/** A provider's discovery document and keys are fetched again after this long (keys rotate; a changed issuer takes effect). */
const DISCOVERY_TTL_MS = 5 * 60_000;

interface Discovered {
  /** What the configuration was discovered for: a changed provider is discovered again. */
  key: string;
  expiresAt: number;
  configuration: Promise<client.Configuration>;
}

const discovered = new Map<string, Discovered>();

function discover(provider: IdentityProvider): Promise<client.Configuration> {
  const issuer = issuerOf(provider);
  const key = `${issuer}\n${provider.client_id}\n${provider.updated_at}`;
  const cached = discovered.get(provider.id);
  if (cached && cached.key === key && cached.expiresAt > Date.now()) return cached.configuration;
  const configuration = client
    .discovery(new URL(issuer), provider.client_id, provider.client_secret, undefined, {
      timeout: PROVIDER_TIMEOUT_MS / 1000,
      // Plain http only to an issuer on this machine (checkedIssuer allows no other).
      execute: isLoopbackHttp(issuer) ? [client.allowInsecureRequests] : [],
    })
    .then((config) => {
      config.timeout = PROVIDER_TIMEOUT_MS / 1000;
      return config;
    });
  discovered.set(provider.id, { key, expiresAt: Date.now() + DISCOVERY_TTL_MS, configuration });
  // A failed discovery is tried again at the next sign-in, not remembered.
  configuration.catch(() => discovered.get(provider.id)?.configuration === configuration && discovered.delete(provider.id));
  return configuration;
}

async function discoverOrRefuse(provider: IdentityProvider): Promise<client.Configuration> {
  try {
    return await discover(provider);
  } catch (error) {
    throw signInRefused(`${provider.name} could not be reached: discovery at ${issuerOf(provider)} failed: ${messageOf(error)}`);
  }
}

export async function oidcAuthorizationUrl(provider: IdentityProvider, checks: SignInChecks): Promise<URL> {
  const configuration = await discoverOrRefuse(provider);
  return client.buildAuthorizationUrl(configuration, {
    redirect_uri: checks.redirectUri,
    scope: SCOPE,
    response_type: 'code',
    state: checks.state,
    nonce: checks.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(checks.codeVerifier),
    code_challenge_method: 'S256',
  });
}

/**
 * Exchanges the code (PKCE), checks the ID token (signature, issuer, audience, expiry, nonce) and
 * reads the reader's claims; an address the ID token leaves out is asked of the userinfo endpoint.
 */
export async function oidcClaims(provider: IdentityProvider, callback: URL, checks: SignInChecks): Promise<ProviderClaims> {
  const configuration = await discoverOrRefuse(provider);
  let claims: Record<string, unknown>;
  try {
    const tokens = await client.authorizationCodeGrant(
      configuration,
      callback,
      { pkceCodeVerifier: checks.codeVerifier, expectedState: checks.state, expectedNonce: checks.nonce, idTokenExpected: true },
      { redirect_uri: checks.redirectUri },
    );
    const idToken = tokens.claims()!;
    claims = { ...idToken };
    if (claims.email === undefined && configuration.serverMetadata().userinfo_endpoint) {
      claims = { ...(await client.fetchUserInfo(configuration, tokens.access_token, idToken.sub)), ...idToken };
    }
  } catch (error) {
    throw signInRefused(`${provider.name}'s answer was refused: ${messageOf(error)}`);
  }
  const text = (name: string) => (typeof claims[name] === 'string' && claims[name] !== '' ? (claims[name] as string) : null);
  const email = text('email')?.toLowerCase() ?? null;
  const picture = text('picture');
  return {
    subject: text('sub')!,
    email,
    // Absent is not vouched for. Microsoft's email claim is whatever the account's owner typed: never proof.
    emailVerified: email !== null && provider.type !== 'microsoft' && (claims.email_verified === true || claims.email_verified === 'true'),
    name: text('name') ?? text('preferred_username'),
    pictureUrl: picture && /^https:\/\/\S{1,2000}$/.test(picture) ? picture : null,
  };
}

/** Runs discovery and says what the issuer offers, or where it failed. */
export async function checkOidc(provider: IdentityProvider): Promise<ProviderCheck> {
  const issuer = issuerOf(provider);
  discovered.delete(provider.id);
  try {
    const metadata = (await discover(provider)).serverMetadata();
    const pkce = metadata.code_challenge_methods_supported?.includes('S256')
      ? 'supports PKCE S256'
      : 'does not list PKCE S256 among its code challenge methods (Parley sends it; most providers accept it unlisted)';
    return { ok: true, detail: `Issuer ${issuer} answered; ${pkce}. The client id and secret are checked at the first sign-in.` };
  } catch (error) {
    return { ok: false, detail: `Discovery at ${issuer} failed: ${messageOf(error)}` };
  }
}
