import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../db/connect.ts';
import { AppError } from '../errors.ts';

/**
 * CORS for the widget's endpoints only (with a reader's sign-in and own page); the management API
 * (/api/..., /v1/sites, minting /v1/sessions) is called with API keys from servers and answers
 * browsers on other origins with no CORS headers.
 */
const WIDGET_PATH = /^\/v1\/(comments|counts|feeds|widget|sso|auth\/email|me|sessions\/current|follows|notifications)(?=[/?]|$)/;
/** What a reader's session does to itself (a follow of theirs named in the path among it): its site is the session's. */
const SESSION_PATH = /^\/v1\/(me|sessions\/current|follows\/[^/?]+)(?=[/?]|$)/;
/**
 * A comment named in the path; the live stream (/v1/comments/stream), a thread's participants
 * (/v1/comments/participants) and a site's recent comments (/v1/comments/recent) name their site in
 * the query, a preview (/v1/comments/preview) in its body.
 */
const COMMENT_PATH = /^\/v1\/comments\/(?!(?:stream|participants|preview|recent)(?:\?|$))([^/?]+)/;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE',
  'access-control-allow-headers': 'Authorization, Content-Type',
  'access-control-max-age': '600',
};
const EXPOSED_HEADERS = 'Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit-Policy, RateLimit';

/** null: the request names no site we know (its answer is an error that carries nothing of a site). */
type Domains = string[] | null;

function crossOrigin(request: FastifyRequest): string | null {
  const origin = request.headers.origin;
  if (origin === undefined || !WIDGET_PATH.test(request.url)) return null;
  return origin === `${request.protocol}://${request.host}` ? null : origin;
}

/** The schemes of a site's pages, with their default ports. */
const PAGE_SCHEMES = new Map([
  ['https:', '443'],
  ['http:', '80'],
]);

/**
 * `Access-Control-Allow-Origin` for this origin, or null when the site's domains leave it out. A
 * domain is a host name, whose pages are served over https or http on the scheme's default port, or
 * a host and the port they are served on (`localhost:8080`). Another scheme or port of the host is
 * another origin, not the site's.
 */
function allowedOrigin(origin: string, domains: Domains): string | null {
  if (domains === null || domains.length === 0) return '*';
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return null;
  }
  const defaultPort = PAGE_SCHEMES.get(url.protocol);
  // The URL parser drops a default port (https://x:443 is https://x); anything else (a path, a user) is no origin.
  if (defaultPort === undefined || (origin !== url.origin && origin !== `${url.origin}:${defaultPort}`)) return null;
  return domains.includes(url.port === '' ? url.hostname : url.host) ? origin : null;
}

/**
 * The site a widget request acts on, read where its route reads it: the comment named in the path
 * (/v1/comments/:id and below), the JSON body's site_id when posting, the query's site_id for lists
 * and the widget settings, the session's own site for a reader's own page and session. Never a
 * site_id the route ignores: that would let any site without domains lift another site's
 * restriction. A preflight carries neither body nor credential, so a preflight for posting or for a
 * session's own page is answered for any origin and the request itself is checked once its body or
 * credential is read.
 */
async function siteDomains(db: Db, request: FastifyRequest): Promise<Domains> {
  const site = await siteActedOn(db, request);
  return site ? (JSON.parse(site.domains) as string[]) : null;
}

// Each lookup runs for refused requests too (onSend): an id with U+0000 names nothing, and
// PostgreSQL would fail the lookup rather than find nothing.
function siteActedOn(db: Db, request: FastifyRequest): Promise<{ domains: string } | undefined> | undefined {
  if (SESSION_PATH.test(request.url)) {
    const caller = request.caller as FastifyRequest['caller'] | null;
    return caller?.kind === 'session' ? db.kysely.selectFrom('sites').select('domains').where('id', '=', caller.siteId).executeTakeFirst() : undefined;
  }
  const inPath = COMMENT_PATH.exec(request.url)?.[1];
  if (inPath !== undefined) {
    const commentId = decodeURIComponent(inPath);
    if (commentId.includes('\u0000')) return undefined;
    return db.kysely
      .selectFrom('comments')
      .innerJoin('sites', 'sites.id', 'comments.site_id')
      .select('sites.domains')
      .where('comments.id', '=', commentId)
      .executeTakeFirst();
  }
  const method = request.method === 'OPTIONS' ? request.headers['access-control-request-method'] : request.method;
  const body = request.body as { site_id?: unknown } | undefined;
  const siteId = method === 'POST' ? (typeof body?.site_id === 'string' ? body.site_id : null) : new URL(request.url, 'http://parley').searchParams.get('site_id');
  if (siteId === null || siteId.includes('\u0000')) return undefined;
  return db.kysely.selectFrom('sites').select('domains').where('id', '=', siteId).executeTakeFirst();
}

/**
 * Sites are the unit of CORS: a site with no domains is embeddable anywhere (`*`), otherwise only on
 * pages whose origin host is one of its domains. Credentials travel in the Authorization header, so
 * Access-Control-Allow-Credentials is never sent and no cookie is ever involved. A write from a page
 * outside the site's domains is refused (403) rather than merely unreadable.
 */
export function registerCors(app: FastifyInstance, db: Db): void {
  const resolved = new WeakMap<FastifyRequest, Promise<Domains>>();
  const domainsOf = (request: FastifyRequest) => {
    let domains = resolved.get(request);
    if (!domains) {
      domains = siteDomains(db, request);
      resolved.set(request, domains);
    }
    return domains;
  };

  app.addHook('onRequest', async (request, reply) => {
    const origin = crossOrigin(request);
    if (origin === null || request.method !== 'OPTIONS' || !request.headers['access-control-request-method']) return;
    const allow = allowedOrigin(origin, await domainsOf(request));
    // Added to what the route varies by (the thread's HTML: Accept-Language), not in its place.
    const vary = reply.getHeader('vary');
    reply.header('vary', vary ? `${String(vary)}, Origin` : 'Origin');
    if (allow !== null) reply.header('access-control-allow-origin', allow).headers(PREFLIGHT_HEADERS);
    return reply.code(204).send();
  });

  app.addHook('preHandler', async (request) => {
    const origin = crossOrigin(request);
    if (origin === null || SAFE_METHODS.has(request.method)) return;
    if (allowedOrigin(origin, await domainsOf(request)) === null) {
      throw new AppError('forbidden', `Pages on ${origin} are not among this site's domains`);
    }
  });

  app.addHook('onSend', async (request, reply) => {
    const origin = crossOrigin(request);
    if (origin === null || request.method === 'OPTIONS') return;
    // Added to what the route varies by (the thread's HTML: Accept-Language), not in its place.
    const vary = reply.getHeader('vary');
    reply.header('vary', vary ? `${String(vary)}, Origin` : 'Origin');
    const allow = allowedOrigin(origin, await domainsOf(request));
    if (allow !== null) reply.header('access-control-allow-origin', allow).header('access-control-expose-headers', EXPOSED_HEADERS);
  });
}
