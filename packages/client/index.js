import createClient from 'openapi-fetch';

/**
 * A client for every operation of Parley's API, typed by `openapi.d.ts` (generated from the server's
 * /openapi.json). An API key or a session token goes in `Authorization: Bearer …` on every request.
 *
 * @param {import('./index.d.ts').ParleyClientOptions} options
 */
export function createParleyClient({ baseUrl, apiKey, sessionToken, headers, fetch }) {
  if (apiKey && sessionToken) throw new TypeError('createParleyClient: give apiKey or sessionToken, not both');
  const token = apiKey ?? sessionToken;
  return createClient({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: token ? { ...headers, authorization: `Bearer ${token}` } : headers,
    ...(fetch ? { fetch } : {}),
  });
}
