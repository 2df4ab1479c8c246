import type { PolicyName } from '../../src/ratelimits/policies.ts';

/** The rate limits a test server runs with, stated by the test rather than read from the server. */
export interface Limits {
  keyPerMinute: number;
  ipPerMinute: number;
  guestCommentsPerHour: number;
  sessionCommentsPerHour: number;
}

/** The specification's numbers (what a server without rate-limit settings enforces). */
export const DEFAULT_LIMITS: Limits = { keyPerMinute: 1000, ipPerMinute: 600, guestCommentsPerHour: 5, sessionCommentsPerHour: 30 };

export function limitsEnv(limits: Limits): Record<string, string> {
  return {
    PARLEY_RATE_LIMIT_KEY_PER_MINUTE: String(limits.keyPerMinute),
    PARLEY_RATE_LIMIT_IP_PER_MINUTE: String(limits.ipPerMinute),
    PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: String(limits.guestCommentsPerHour),
    PARLEY_RATE_LIMIT_SESSION_COMMENTS_PER_HOUR: String(limits.sessionCommentsPerHour),
    // The draft's fields name the policy a request counted against, which the checks below need.
    PARLEY_RATE_LIMIT_DRAFT_HEADERS: 'true',
  };
}

function configured(limits: Limits, policy: PolicyName): { limit: number; windowSeconds: number } {
  switch (policy) {
    case 'api-key':
      return { limit: limits.keyPerMinute, windowSeconds: 60 };
    case 'ip':
      return { limit: limits.ipPerMinute, windowSeconds: 60 };
    case 'guest-comments':
      return { limit: limits.guestCommentsPerHour, windowSeconds: 3600 };
    case 'session-comments':
      return { limit: limits.sessionCommentsPerHour, windowSeconds: 3600 };
    default:
      throw new Error(`${policy} limits sign-ins, not requests`);
  }
}

export interface LimitedAnswer {
  status: number;
  /** When the request was sent (ms): it was counted between then and now. Default: now. */
  sentAt?: number;
  headers: Record<string, string | string[] | undefined>;
  json?: { code?: string };
}

const FIELDS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit-policy', 'ratelimit'];

/**
 * What is wrong with an answer's rate-limit fields, or null. `expected` is the policy the request
 * must have counted against (null: an unlimited request, which carries none of the fields; undefined:
 * any policy, when the test cannot tell). The fields must agree with each other and with the
 * configured limit; a 429 must be `rate_limited` with a usable Retry-After and nothing remaining.
 */
export function brokenLimitHeaders(answer: LimitedAnswer, limits: Limits, expected: PolicyName | null | undefined): string | null {
  const field = (name: string) => {
    const value = answer.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  if (expected === null) return FIELDS.some((name) => field(name) !== undefined) ? 'rate-limit fields on an unlimited request' : null;
  const missing = FIELDS.filter((name) => field(name) === undefined);
  if (missing.length > 0) return `no ${missing.join(', ')}`;

  const policy = /^"([a-z-]+)";q=(\d+);w=(\d+)$/.exec(field('ratelimit-policy')!);
  if (!policy) return `RateLimit-Policy is ${field('ratelimit-policy')}`;
  const name = policy[1] as PolicyName;
  if (expected !== undefined && name !== expected) return `counted against ${name}, expected ${expected}`;
  const { limit, windowSeconds } = configured(limits, name);
  if (Number(policy[2]) !== limit || Number(policy[3]) !== windowSeconds) return `RateLimit-Policy ${field('ratelimit-policy')}, configured q=${limit};w=${windowSeconds}`;
  if (field('x-ratelimit-limit') !== String(limit)) return `X-RateLimit-Limit ${field('x-ratelimit-limit')} for ${name}, configured ${limit}`;

  const state = /^"([a-z-]+)";r=(\d+);t=(\d+)$/.exec(field('ratelimit')!);
  if (!state || state[1] !== name) return `RateLimit is ${field('ratelimit')} under ${name}`;
  const remaining = field('x-ratelimit-remaining')!;
  if (!/^\d+$/.test(remaining) || remaining !== state[2]) return `X-RateLimit-Remaining ${remaining}, RateLimit r=${state[2]}`;
  if (Number(remaining) > limit) return `X-RateLimit-Remaining ${remaining} above the limit ${limit}`;
  const secondsLeft = Number(state[3]);
  if (secondsLeft < 1 || secondsLeft > windowSeconds) return `RateLimit t=${secondsLeft} outside 1..${windowSeconds}`;
  const reset = Number(field('x-ratelimit-reset'));
  const now = Date.now() / 1000;
  const sent = (answer.sentAt ?? Date.now()) / 1000;
  if (!Number.isInteger(reset) || reset < sent + secondsLeft - 2 || reset > now + secondsLeft + 2) {
    return `X-RateLimit-Reset ${field('x-ratelimit-reset')} is not the time of counting + t=${secondsLeft}`;
  }

  const retryAfter = field('retry-after');
  if (answer.status === 429) {
    if (answer.json?.code !== 'rate_limited') return `429 with code ${answer.json?.code}`;
    if (!/^\d+$/.test(retryAfter ?? '') || Number(retryAfter) < 1 || Number(retryAfter) > windowSeconds) return `429 with Retry-After ${retryAfter}`;
    if (remaining !== '0') return `429 with ${remaining} remaining`;
  } else if (retryAfter !== undefined) {
    return `Retry-After on a ${answer.status}`;
  }
  return null;
}
