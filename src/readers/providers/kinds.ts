import { AppError, invalid } from '../../errors.ts';
import { resolveTarget, TargetError } from '../../webhooks/address.ts';

/** `oidc`: any OpenID Connect issuer; `github`: GitHub's OAuth 2 and its user APIs; the rest are OpenID issuers Parley knows. */
export const PROVIDER_TYPES = ['oidc', 'github', 'google', 'gitlab', 'microsoft'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

/**
 * The issuer a type signs in at when the admin names none. Microsoft's is the tenant of personal
 * accounts (outlook.com, live.com); a work or school tenant names its own v2.0 issuer.
 */
export const DEFAULT_ISSUERS: Record<ProviderType, string | null> = {
  oidc: null,
  github: 'https://github.com',
  google: 'https://accounts.google.com',
  gitlab: 'https://gitlab.com',
  microsoft: 'https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0',
};

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Whether requests to the issuer go over plain http: allowed only to this machine (tests, local development). */
export function isLoopbackHttp(issuer: string): boolean {
  const url = new URL(issuer);
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/**
 * The issuer as stored: an https URL, or http on a loopback host; no credentials, query or fragment
 * (OpenID discovery appends its path to it). A trailing slash is kept: an issuer is compared as
 * written, and some end in one.
 */
export function checkedIssuer(type: ProviderType, issuer: string | null | undefined, path = 'body/issuer'): string | null {
  if (issuer === null || issuer === undefined) {
    if (type === 'oidc') throw invalid(path, 'is required for an OpenID Connect provider: the URL its discovery document is under');
    return null;
  }
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw invalid(path, 'must be an absolute https URL');
  }
  if (url.username || url.password || url.search || url.hash) throw invalid(path, 'must have no credentials, query or fragment');
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) throw invalid(path, 'must be https (http only on 127.0.0.1, ::1 or localhost)');
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid(path, 'must be an absolute https URL');
  // GitHub's endpoints are paths under the server's base URL: a trailing slash would double theirs.
  return type === 'github' ? issuer.replace(/\/+$/, '') : issuer;
}

/** Where a provider signs readers in: its own issuer, else its type's. */
export function issuerOf(provider: { type: string; issuer: string | null }): string {
  return provider.issuer ?? DEFAULT_ISSUERS[provider.type as ProviderType]!;
}

/**
 * Before Parley's server fetches anything of an issuer: its host must not be, nor resolve to, a
 * private or link-local address (a cloud's metadata service, the operator's internal network), or
 * a site admin could have the server probe them through discovery and the provider test. This
 * machine's own addresses are allowed, as the issuer checks allow them for tests and local
 * development; PARLEY_IDENTITY_ALLOW_PRIVATE allows the rest (an identity server on the operator's
 * own network). A name that does not resolve is left to the fetch, which then says so.
 */
export async function assertReachableIssuer(issuer: string, allowPrivate: boolean): Promise<void> {
  const { hostname } = new URL(issuer);
  if (allowPrivate || LOOPBACK_HOSTS.has(hostname)) return;
  try {
    await resolveTarget(hostname, false);
  } catch (error) {
    if (error instanceof TargetError && error.code === 'blocked_address') {
      throw new AppError('conflict', `The provider's issuer ${error.message}: Parley does not reach such addresses unless PARLEY_IDENTITY_ALLOW_PRIVATE is set`);
    }
    if (!(error instanceof TargetError)) throw error;
  }
}
