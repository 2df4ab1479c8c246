import { expect } from 'vitest';
import type { PolicyName } from '../../src/ratelimits/policies.ts';
import { brokenLimitHeaders, DEFAULT_LIMITS, limitsEnv } from './limit-headers.ts';
import { describeMatrix } from './matrix.ts';
import { STAFF_CALLERS, type CallerName } from './world.ts';

/**
 * The whole permission matrix again, on a server with the specification's rate limits: the limiter
 * changes no cell's status, and every answer, 401, 403 and 404 included, carries the fields of the
 * one limit its caller counts against (README "Rate limits").
 */
const KEYS: CallerName[] = ['integrationKey', 'moderatorKey', 'adminKey', 'otherAccountKey'];
const SESSIONS: CallerName[] = ['user', 'otherUser', 'otherSiteSession'];

function policyOf(endpoint: string, caller: CallerName, status: number): PolicyName {
  if (KEYS.includes(caller)) return 'api-key';
  // A comment creation that fails counts under its IP's limit instead of the comment limit.
  if (endpoint !== 'POST /v1/comments' || status >= 400) return 'ip';
  if (SESSIONS.includes(caller)) return 'session-comments';
  return caller === 'none' || caller === 'guest' || STAFF_CALLERS.includes(caller) ? 'guest-comments' : 'ip';
}

/**
 * Staff callers are guests under /v1 (the cookie is not read there), and the one test address may
 * post five guest comments an hour, which `none` and `guest` already take two of: their comment
 * creations run in the plain matrix only.
 */
const guestsPastTheLimit = (endpoint: string, caller: CallerName) => endpoint === 'POST /v1/comments' && STAFF_CALLERS.includes(caller);

describeMatrix('the permission matrix with the default rate limits on', limitsEnv(DEFAULT_LIMITS), (response, endpoint, caller, _status, sentAt) => {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  const answer = { status: response.status, headers, json: response.body, sentAt };
  expect(brokenLimitHeaders(answer, DEFAULT_LIMITS, policyOf(endpoint, caller, response.status))).toBeNull();
}, guestsPastTheLimit);
