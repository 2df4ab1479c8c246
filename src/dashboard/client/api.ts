/// <reference lib="dom" />
import createClient from 'openapi-fetch';
import { t } from '../app/i18n.ts';
import type { components, paths } from '@parley/client';

export type { paths };
export type Problem = components['schemas']['Problem'];

type Json<R> = R extends { content: { 'application/json': infer T } } ? T : never;
/** What an operation answers with when it succeeds (200, or 201 for a creation). */
export type Answer<P extends keyof paths, M extends 'get' | 'post' | 'patch' | 'delete' = 'get'> = paths[P][M] extends { responses: infer R }
  ? R extends { 200: infer O }
    ? Json<O>
    : R extends { 201: infer O }
      ? Json<O>
      : never
  : never;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
let csrfToken: string | null = null;

/** The CSRF token of the signed-in session (GET /api/auth/me or the sign-in's answer), sent with every write. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/**
 * The only way the dashboard talks to Parley: openapi-fetch typed by the generated declarations. The
 * cookie rides along by itself (same origin); every POST, PATCH and DELETE carries X-CSRF-Token.
 */
export const api = createClient<paths>({ baseUrl: typeof location === 'undefined' ? '' : location.origin });
api.use({
  onRequest({ request }) {
    if (!SAFE_METHODS.has(request.method) && csrfToken) request.headers.set('x-csrf-token', csrfToken);
    return request;
  },
});

/** A refusal or failure said in words, with the problem's code when the server gave one. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string | null;
  constructor(message: string, status: number, code: string | null) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The words a person reads for a problem+json answer. */
export function problemText(problem: Partial<Problem> | undefined, status: number): string {
  const field = problem?.errors?.[0];
  if (field) return t('api.fieldProblem', { field: field.path.replace(/^(body|querystring|params)\//, ''), message: field.message });
  return problem?.detail || problem?.title || t('api.answered', { status: String(status) });
}

let onSignedOut: () => void = () => undefined;
/** Called when an answer says the session is gone (401), so the app can show the sign-in page. */
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

/** The data of a call, or an ApiError whose message says what went wrong. */
export async function must<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let answer: { data?: T; error?: unknown; response: Response };
  try {
    answer = await call;
  } catch {
    throw new ApiError(t('api.noAnswer'), 0, null);
  }
  const { data, error, response } = answer;
  if (response.ok) return data as T;
  const problem = error as Partial<Problem> | undefined;
  if (response.status === 401 && !response.url.includes('/api/auth/')) onSignedOut();
  throw new ApiError(problemText(problem, response.status), response.status, problem?.code ?? null);
}

/** An error of any kind as a sentence. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
