import type { FastifyRequest } from 'fastify';
import type { Caller } from '../auth/caller.ts';
import type { Config } from '../config.ts';

/** The names also appear to clients, in the RateLimit-Policy and RateLimit fields. */
export type PolicyName = 'api-key' | 'session-comments' | 'guest-comments' | 'ip';

export interface Policy {
  name: PolicyName;
  limit: number;
  windowSeconds: number;
  /** Comment limits count comments made: a creation that fails is given back. */
  refundsFailures: boolean;
}

/** The limits in force; a limit set to 0 is off and has no policy. */
export function policiesOf(limits: Config['rateLimits']): Map<PolicyName, Policy> {
  const all: Policy[] = [
    { name: 'api-key', limit: limits.keyPerMinute, windowSeconds: limits.requestWindowSeconds, refundsFailures: false },
    { name: 'session-comments', limit: limits.sessionCommentsPerHour, windowSeconds: limits.commentWindowSeconds, refundsFailures: true },
    { name: 'guest-comments', limit: limits.guestCommentsPerHour, windowSeconds: limits.commentWindowSeconds, refundsFailures: true },
    { name: 'ip', limit: limits.ipPerMinute, windowSeconds: limits.requestWindowSeconds, refundsFailures: false },
  ];
  return new Map(all.filter((policy) => policy.limit > 0).map((policy) => [policy.name, policy]));
}

/**
 * Operational endpoints that load balancers and people reading the docs hit freely, and CORS
 * preflights: the browser's question before a widget request, which counts when it follows.
 */
function isUnlimited(request: FastifyRequest): boolean {
  if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) return true;
  const route = request.routeOptions.url;
  return route === '/healthz' || route === '/readyz' || route === '/openapi.json' || route === '/docs' || !!route?.startsWith('/docs/');
}

export interface Charge {
  policy: Policy;
  /** Whose counter: the key id, the user id or the client IP. */
  subject: string;
}

/**
 * The one limit a request counts against. `caller` is null when the request's credential was
 * refused (or never looked at): such a request counts as its IP's (`ip`, the client address), so
 * credentials cannot be guessed at leisure.
 */
export function chargeFor(request: FastifyRequest, caller: Caller | null, policies: Map<PolicyName, Policy>, ip: string): Charge | null {
  if (isUnlimited(request)) return null;
  const charge = (name: PolicyName, subject: string): Charge | null => {
    const policy = policies.get(name);
    return policy ? { policy, subject } : null;
  };
  if (caller?.kind === 'key') return charge('api-key', caller.keyId);
  if (request.routeOptions.config.commentCreation && caller) {
    return caller.kind === 'session' ? charge('session-comments', caller.userId) : charge('guest-comments', caller.ip);
  }
  return charge('ip', ip);
}
