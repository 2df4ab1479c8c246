import type { FastifyRequest } from 'fastify';
import type { Caller } from '../auth/caller.ts';
import type { Config } from '../config.ts';
import { clientKey } from './client-key.ts';

/** The names also appear to clients, in the RateLimit-Policy and RateLimit fields. */
export type PolicyName = 'api-key' | 'session-comments' | 'guest-comments' | 'guest-votes' | 'ip' | LoginPolicyName | ConfirmMailPolicyName | AddressMailPolicyName | SignInPolicyName;
/** Confirmation mails of "Email me replies" (src/ratelimits/confirm-mails.ts). */
export type ConfirmMailPolicyName = 'confirm-mails-reader' | 'confirm-mails-site';
/** New links a staff member asks for to confirm their address (src/ratelimits/address-mails.ts). */
export type AddressMailPolicyName = 'address-mails-minute' | 'address-mails-hour';
/** Readers' sign-in codes: mails asked for, and wrong codes tried (src/ratelimits/sign-in-mails.ts). */
export type SignInPolicyName = 'sign-in-mails-client' | 'sign-in-mails-address' | 'sign-in-mails-site' | 'sign-in-codes-client';
/** Failed staff sign-ins (src/ratelimits/login.ts). */
export type LoginPolicyName = 'login-account' | 'login-delay' | 'login-device' | 'login-ip';

export interface Policy {
  name: PolicyName;
  limit: number;
  windowSeconds: number;
  /** Comment limits count comments made: a creation that fails is given back. */
  refundsFailures: boolean;
  /** The response fields that are the same on every request under the policy, written once. */
  fields: {
    /** X-RateLimit-Limit. */
    limit: string;
    /** RateLimit-Policy. */
    policy: string;
    /** RateLimit up to the remaining count, which each request appends with the seconds left. */
    stateStart: string;
    /** X-RateLimit-Reset of a window ending at this time (ms). */
    reset: (endsAtMs: number) => string;
  };
}

/**
 * X-RateLimit-Reset for a window ending at `endsAtMs`, as a string. It moves once a second, so the
 * last one is kept: Node checks and copies a header value that is a number more slowly than a string.
 */
function resetField(): (endsAtMs: number) => string {
  let seconds = NaN;
  let field = '';
  return (endsAtMs) => {
    const next = Math.ceil(endsAtMs / 1000);
    if (next !== seconds) field = String((seconds = next));
    return field;
  };
}

export function policy(name: PolicyName, limit: number, windowSeconds: number, refundsFailures: boolean): Policy {
  const fields = { limit: String(limit), policy: `"${name}";q=${limit};w=${windowSeconds}`, stateStart: `"${name}";r=`, reset: resetField() };
  return { name, limit, windowSeconds, refundsFailures, fields };
}

/** The limits in force; a limit set to 0 is off and has no policy. */
export function policiesOf(limits: Config['rateLimits']): Map<PolicyName, Policy> {
  const all = [
    policy('api-key', limits.keyPerMinute, limits.requestWindowSeconds, false),
    policy('session-comments', limits.sessionCommentsPerHour, limits.commentWindowSeconds, true),
    policy('guest-comments', limits.guestCommentsPerHour, limits.commentWindowSeconds, true),
    policy('guest-votes', limits.guestVotesPerHour, limits.commentWindowSeconds, true),
    policy('ip', limits.ipPerMinute, limits.requestWindowSeconds, false),
  ];
  return new Map(all.filter((policy) => policy.limit > 0).map((policy) => [policy.name, policy]));
}

/**
 * Operational endpoints that load balancers, Prometheus (its token is checked in constant time and
 * cannot be guessed) and people reading the docs hit freely, and CORS
 * preflights: the browser's question before a widget request, which counts when it follows.
 */
function isUnlimited(request: FastifyRequest, route: string | undefined): boolean {
  if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) return true;
  return route === '/healthz' || route === '/readyz' || route === '/metrics' || route === '/openapi.json' || route === '/docs' || !!route?.startsWith('/docs/');
}

export interface Charge {
  policy: Policy;
  /** Whose counter: the key id, the user id or the client's key (clientKey). */
  subject: string;
  /**
   * A comment creation's: the client's IP limit, which the creation counts under instead when it
   * fails, so a flood of refused posts is limited like any other requests.
   */
  failure: Charge | null;
}

/**
 * The one limit a request counts against (a comment creation that fails counts under its `failure`
 * instead). `caller` is null when the request's credential was refused (or never looked at): such a
 * request counts as its IP's (`ip`, the client address), so credentials cannot be guessed at leisure.
 */
export function chargeFor(request: FastifyRequest, caller: Caller | null, policies: Map<PolicyName, Policy>, ip: string): Charge | null {
  // Read once: Fastify builds a new object on every read of routeOptions.
  const { url: route, config } = request.routeOptions;
  if (isUnlimited(request, route)) return null;
  if (caller?.kind === 'key') return charge(policies.get('api-key'), caller.keyId, null);
  const client = clientKey(ip);
  const byIp = charge(policies.get('ip'), client, null);
  if (config.commentCreation && caller) {
    return caller.kind === 'session' ? charge(policies.get('session-comments'), caller.userId, byIp) : charge(policies.get('guest-comments'), client, byIp);
  }
  // A guest's vote counts what it makes, as a guest's comment does; a refused one counts as the IP's.
  if (config.guestVote && caller?.kind === 'public') return charge(policies.get('guest-votes'), client, byIp);
  return byIp;
}

function charge(policy: Policy | undefined, subject: string, failure: Charge | null): Charge | null {
  return policy ? { policy, subject, failure } : null;
}
