import { expect } from 'vitest';
import type { PolicyName } from '../../src/ratelimits/policies.ts';
import { brokenLimitHeaders, DEFAULT_LIMITS, limitsEnv } from './limit-headers.ts';
import { describeMatrix } from './matrix.ts';
import { STAFF_CALLERS, type CallerName } from './world.ts';

/**
 * The whole permission matrix again, on a server with the specification's rate limits: the limiter
 * changes no cell's status, and every answer, 401, 403 and 404 included, carries the fields of the
 * one limit its caller counts against (docs/api.md, "Rate limits"), but /metrics, which no limit counts.
 */
const KEYS: CallerName[] = ['integrationKey', 'moderatorKey', 'adminKey', 'otherAccountKey'];
const SESSIONS: CallerName[] = ['user', 'otherUser', 'otherSiteSession'];

function policyOf(endpoint: string, caller: CallerName, status: number): PolicyName {
  if (KEYS.includes(caller)) return 'api-key';
  // A comment creation that fails counts under its IP's limit instead of the comment limit. A form's
  // post is a comment creation too; it answers 303 whatever became of the comment.
  if (!/^POST \/v1\/comments(\/form)?( \(|$)/.test(endpoint) || status >= 400) return 'ip';
  if (SESSIONS.includes(caller)) return 'session-comments';
  return caller === 'none' || caller === 'guest' || STAFF_CALLERS.includes(caller) ? 'guest-comments' : 'ip';
}

// Each caller from an address of its own: the table has more rows than one address may send in a minute.
describeMatrix('the permission matrix with the default rate limits on', { ...limitsEnv(DEFAULT_LIMITS), TRUST_PROXY: '127.0.0.1' }, (response, endpoint, caller, _status, sentAt) => {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  // Prometheus's scrapes are never limited (like /healthz): its token cannot be guessed.
  if (endpoint === 'GET /metrics') return expect(headers['x-ratelimit-limit']).toBeUndefined();
  const answer = { status: response.status, headers, json: response.body, sentAt };
  expect(brokenLimitHeaders(answer, DEFAULT_LIMITS, policyOf(endpoint, caller, response.status))).toBeNull();
}, undefined, true);
