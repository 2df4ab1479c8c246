import fastifyCookie from '@fastify/cookie';
import fastifyCsrfProtection from '@fastify/csrf-protection';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { StaffCaller } from '../auth/caller.ts';
import type { Db } from '../db/connect.ts';
import { AppError } from '../errors.ts';
import { staffCallerOfToken, STAFF_SESSION_LIFETIME_MS, type OpenedSession } from './sessions.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** A signed-in staff member's session as @fastify/csrf-protection reads it (null otherwise). */
    session: { csrfSecret: string } | null;
  }
  interface FastifyContextConfig {
    /** Signs in from what the body proves (a password, a link's token), never from the cookie: same origin, no CSRF token. */
    staffSignIn?: boolean;
  }
}

export const STAFF_COOKIE = 'parley_staff';
/** The header a signed-in request that changes something carries its CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
// The cookie is only ever sent to, and only ever read under, the management API.
const COOKIE_PATH = '/api/';

/**
 * Whether a browser sent the request from a page of another origin. Browsers send Origin with every
 * POST, PATCH and DELETE, and Sec-Fetch-Site with every request; curl and servers send neither.
 */
function crossOrigin(request: FastifyRequest): boolean {
  const fetchSite = request.headers['sec-fetch-site'];
  if (fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none') return true;
  const origin = request.headers.origin;
  return origin !== undefined && origin !== `${request.protocol}://${request.host}`;
}

function crossOriginRefusal(request: FastifyRequest): AppError | null {
  return crossOrigin(request) ? new AppError('forbidden', 'Staff sign-ins are accepted only from pages of this server, never from another origin') : null;
}

/**
 * Staff sign in with a cookie, accepted only on `/api/` routes (never `/v1/`), only from this
 * server's own origin, and, for a request that changes something, only with the CSRF token of its
 * session. The token comes from @fastify/csrf-protection, made from a secret kept in the session's
 * row: the library reads it where @fastify/session would keep it (`request.session`), so a token is
 * bound to one server-side session and dies with it. The cookie plugin parses nothing on its own
 * (`hook: false`): only a request that may sign in with the cookie reads it.
 */
export async function registerStaffAuth(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCookie, { hook: false });
  await app.register(fastifyCsrfProtection, {
    sessionPlugin: '@fastify/session',
    sessionKey: 'csrfSecret',
    getToken: (request) => {
      const token = request.headers[CSRF_HEADER];
      return typeof token === 'string' ? token : undefined;
    },
  });
  app.decorateRequest('session', null);

  const csrfGuard: onRequestHookHandler = (request, reply, done) => {
    if (request.caller.kind !== 'staff') return done();
    if (request.headers[CSRF_HEADER] === undefined) {
      return done(new AppError('forbidden', `A signed-in request that changes something needs the X-CSRF-Token header (csrf_token of GET /api/auth/me)`));
    }
    app.csrfProtection(request, reply, done);
  };
  const sameOriginOnly: onRequestHookHandler = (request, _reply, done) => done(crossOriginRefusal(request) ?? undefined);
  // Attached to the management API's writes only, so no other route runs a hook for it.
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith(COOKIE_PATH) || [route.method].flat().every((method) => SAFE_METHODS.has(method))) return;
    const guard = route.config?.staffSignIn ? sameOriginOnly : csrfGuard;
    route.onRequest = [...(route.onRequest ? [route.onRequest].flat() : []), guard];
  });
}

/**
 * The staff member a request signs in as with its cookie, or null (no cookie, a route outside
 * /api/, or a session that ended: such a stale cookie is as good as none). Cross-origin is refused.
 */
export async function staffCallerOf(db: Db, request: FastifyRequest): Promise<StaffCaller | null> {
  if (!request.routeOptions.url?.startsWith(COOKIE_PATH)) return null;
  const token = request.server.parseCookie(request.headers.cookie!)[STAFF_COOKIE];
  if (!token || !token.startsWith('stfs_')) return null;
  const refusal = crossOriginRefusal(request);
  if (refusal) throw refusal;
  const signedIn = await staffCallerOfToken(db.kysely, token, request.ip);
  if (!signedIn) return null;
  request.session = { csrfSecret: signedIn.csrfSecret };
  return signedIn.caller;
}

/**
 * The cookie's attributes: httpOnly, SameSite=Lax, under /api/ only, Secure when the request came
 * over HTTPS (TRUST_PROXY applied). Written as a header here because the cookie plugin, registered
 * without its hooks, leaves replies alone.
 */
function cookieHeader(request: FastifyRequest, value: string, maxAgeSeconds: number): string {
  return request.server.serializeCookie(STAFF_COOKIE, value, {
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: 'lax',
    secure: request.protocol === 'https',
    maxAge: maxAgeSeconds,
  });
}

export function setStaffCookie(request: FastifyRequest, reply: FastifyReply, session: OpenedSession): void {
  reply.header('set-cookie', cookieHeader(request, session.token, STAFF_SESSION_LIFETIME_MS / 1000));
}

export function clearStaffCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('set-cookie', cookieHeader(request, '', 0));
}

/** A CSRF token of the session (a fresh one on every call; all of them stay valid while it lasts). */
export function csrfTokenOf(request: FastifyRequest, reply: FastifyReply, csrfSecret: string): string {
  request.session = { csrfSecret };
  return reply.generateCsrf();
}
