import { AppError } from '../../errors.ts';
import type { ProvenIdentity } from '../sign-in.ts';

/** What one sign-in at a provider carries from its start to its callback (kept under the hash of `state`). */
export interface SignInChecks {
  redirectUri: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** What a provider proved about the reader; the identity's `provider` is the provider's id, set by the caller. */
export type ProviderClaims = Omit<ProvenIdentity, 'provider'>;

/** The answer of POST /api/sites/:id/identity-providers/:provider_id/test. */
export interface ProviderCheck {
  ok: boolean;
  detail: string;
}

/** How long Parley waits for a provider's answer (discovery, code exchange, user APIs). */
export const PROVIDER_TIMEOUT_MS = 10_000;

/** The provider refused the reader, or its answer failed a check: the sign-in ends with nothing written. */
export function signInRefused(detail: string): AppError {
  return new AppError('unauthorized', detail);
}

/** An error's own words, for a refusal or a test's detail; never the provider's whole answer. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}
