import type { Locale } from '../../i18n/locales.ts';
import type { Selectable } from 'kysely';
import { randomNonce, randomPKCECodeVerifier, randomState } from 'openid-client';
import { hashSecret } from '../../auth/secrets.ts';
import { nowIso } from '../../clock.ts';
import type { Db } from '../../db/connect.ts';
import type { ProviderSignInTable } from '../../db/schema.ts';
import { AppError, invalid } from '../../errors.ts';
import { findSite } from '../../sites/repository.ts';
import { returnTarget, signInReader } from '../sign-in.ts';
import { githubAuthorizationUrl, githubClaims } from './github.ts';
import { oidcAuthorizationUrl, oidcClaims } from './oidc.ts';
import { signInRefused, type SignInChecks } from './protocol.ts';
import { assertReachableIssuer, issuerOf } from './kinds.ts';
import { callbackUrl, providerOfSite } from './service.ts';

export const SIGN_IN_MODES = ['popup', 'redirect'] as const;
export type SignInMode = (typeof SIGN_IN_MODES)[number];

/** Why a callback finds no sign-in to finish; its page says it in the reader's language (routes.ts). */
export const UNKNOWN_SIGN_IN = 'This sign-in is unknown or was already used: start again from the comments';
export const EXPIRED_SIGN_IN = 'This sign-in took longer than 10 minutes: start again from the comments';

/** A reader has this long from the start to the provider's callback. */
const SIGN_IN_LIFETIME_MS = 10 * 60_000;

export type PendingSignIn = Selectable<ProviderSignInTable>;

/**
 * GET /v1/auth/providers/:provider_id/start: remembers the sign-in (under the hash of its state,
 * with its PKCE verifier, nonce and return page) and answers the provider's authorization URL.
 */
export async function startSignIn(
  db: Db,
  reach: { publicUrl: string; allowPrivate: boolean },
  input: { providerId: string; siteId: string; returnTo: string; mode: SignInMode },
): Promise<URL> {
  const { publicUrl } = reach;
  const site = await findSite(db.kysely, input.siteId);
  if (!site) throw new AppError('not_found', `No site ${input.siteId}`);
  const provider = await providerOfSite(db.kysely, site.id, input.providerId);
  const returnTo = returnTarget(site, publicUrl, input.returnTo);
  await assertReachableIssuer(issuerOf(provider), reach.allowPrivate);
  const checks: SignInChecks = { redirectUri: callbackUrl(publicUrl), state: randomState(), nonce: randomNonce(), codeVerifier: randomPKCECodeVerifier() };
  const url = provider.type === 'github' ? await githubAuthorizationUrl(provider, checks) : await oidcAuthorizationUrl(provider, checks);
  const now = Date.now();
  await db.kysely.deleteFrom('provider_sign_ins').where('expires_at', '<', nowIso()).execute();
  await db.kysely
    .insertInto('provider_sign_ins')
    .values({
      state_hash: hashSecret(checks.state),
      site_id: site.id,
      provider_id: provider.id,
      code_verifier: checks.codeVerifier,
      nonce: checks.nonce,
      return_to: returnTo.href,
      mode: input.mode,
      expires_at: new Date(now + SIGN_IN_LIFETIME_MS).toISOString(),
      created_at: new Date(now).toISOString(),
    })
    .execute();
  return url;
}

/**
 * The sign-in its state names, taken once: deleted as it is read, so a replayed callback (the same
 * state, the same code) finds nothing, on any instance.
 */
export async function takePendingSignIn(db: Db, state: string | undefined): Promise<PendingSignIn> {
  if (!state) throw invalid('querystring/state', 'is required: the provider sends it back with the code');
  const pending = await db.kysely.deleteFrom('provider_sign_ins').where('state_hash', '=', hashSecret(state)).returningAll().executeTakeFirst();
  if (!pending) throw new AppError('validation_failed', UNKNOWN_SIGN_IN);
  return pending;
}

export interface CallbackQuery {
  state?: string;
  code?: string;
  error?: string;
  error_description?: string;
}

/**
 * GET /v1/auth/callback, once its sign-in is taken: the provider's answer checked (code exchanged
 * with PKCE; for OpenID Connect the ID token's signature, issuer, audience, expiry and nonce), then
 * the reader signed in. Any refusal throws before anything is written.
 */
export async function finishSignIn(db: Db, publicUrl: string, pending: PendingSignIn, query: CallbackQuery, callback: URL, language: Locale | null) {
  if (pending.expires_at < nowIso()) throw new AppError('validation_failed', EXPIRED_SIGN_IN);
  const site = await findSite(db.kysely, pending.site_id);
  if (!site) throw new AppError('not_found', `No site ${pending.site_id}`);
  const provider = await providerOfSite(db.kysely, site.id, pending.provider_id);
  if (query.error) {
    const why = query.error_description ? `${query.error}: ${query.error_description}` : query.error;
    throw signInRefused(`${provider.name} did not sign you in (${why})`);
  }
  if (!query.code) throw invalid('querystring/code', 'is required: the provider sends it back with the state');
  const checks: SignInChecks = { redirectUri: callbackUrl(publicUrl), state: query.state!, nonce: pending.nonce, codeVerifier: pending.code_verifier };
  const claims = provider.type === 'github' ? await githubClaims(provider, query.code, checks) : await oidcClaims(provider, callback, checks);
  return signInReader(db, site, { provider: provider.id, ...claims }, language);
}
