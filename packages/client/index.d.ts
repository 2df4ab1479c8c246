import type { Client } from 'openapi-fetch';
import type { components, paths } from './openapi.d.ts';

export type { components, paths };
/** A problem+json answer (RFC 9457) as Parley sends it for every error. */
export type Problem = components['schemas']['Problem'];

export interface ParleyClientOptions {
  /** Parley's base URL, e.g. `https://comments.example.com`. */
  baseUrl: string;
  /** A site's or an account's API key, for server-side code only: never ship it to a browser. */
  apiKey?: string;
  /** A reader's session token (POST /v1/sessions, or the widget's sign-in). */
  sessionToken?: string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** A fetch of your own (tests, proxies); the global fetch otherwise. */
  fetch?: (input: Request) => Promise<Response>;
}

export type ParleyClient = Client<paths>;

/** An openapi-fetch client of Parley's API: `client.GET('/v1/comments', { params: { query } })`. */
export declare function createParleyClient(options: ParleyClientOptions): ParleyClient;
