import fc from 'fast-check';
import { ERROR_STATUS } from '../../src/errors.ts';
import type { PolicyName } from '../../src/ratelimits/policies.ts';
import { encodeLoosely, send, type RawRequest, type RawResponse } from './http-client.ts';
import { startParley, type TestParley } from '../helper.ts';
import { brokenLimitHeaders, limitsEnv, type Limits } from './limit-headers.ts';
import { startReceiver, subscribe, WEBHOOK_TEST_ENV } from '../receiver.ts';
import { buildWorld, NO_RATE_LIMITS, type World } from './world.ts';

/**
 * Property-based fuzzing of every endpoint. Each run sends one request built from adversarial parts
 * (path ids, query, headers, body) and checks the contract's promises about any answer: a documented
 * status, problem+json for every error, never a 5xx, and no change to data when the request failed.
 * With rate limits on, every answer also carries rate-limit fields that agree with the limits.
 */

export interface FuzzStats {
  requests: number;
  badInputs: number;
  serverErrors: number;
  /** Answers by status and problem code, to see what the fuzzer reached. */
  statuses: Record<string, number>;
  failures: string[];
}

export const newStats = (): FuzzStats => ({ requests: 0, badInputs: 0, serverErrors: 0, statuses: {}, failures: [] });

const ATTACKS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\ud83d',
  '\u202eevil',
  '\uFEFF',
  '\r\n\r\nX-Injected: 1',
  "'; DROP TABLE comments; --",
  "' OR '1'='1",
  '1; SELECT pg_sleep(5)',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '"><svg onload=alert(1)>',
  'javascript:alert(1)',
  '{{7*7}}${7*7}',
  '../../../../etc/passwd',
  '%00%ff%',
  '__proto__',
  'constructor',
  'null',
  'NaN',
  '𝕳𝖊𝖑𝖑𝖔 👩‍👩‍👧‍👦',
  'é'.normalize('NFD'),
  'x'.repeat(101),
  'x'.repeat(2049),
  'y'.repeat(10_001),
  'https://evil.example.net/',
  'ftp://blog.example.com/x',
  'http://[::1]:99999/',
];

const NUMBERS = [0, -0, -1, 1, 0.5, 100, 101, 2 ** 31, -(2 ** 31), 2 ** 53, Number.MAX_SAFE_INTEGER + 2, 1e308, -1e308, 5e-324];

const adversarialString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...ATTACKS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 300 }) },
);

const adversarialValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: adversarialString },
  { weight: 1, arbitrary: fc.constantFrom(...NUMBERS) },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.array(adversarialString, { maxLength: 5 }) },
);

/** A field is either a value the endpoint would accept, or something hostile, or absent. */
function field(valid: fc.Arbitrary<unknown>) {
  return fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: adversarialValue });
}

type Ids = { comment: string[]; site: string[]; key: string[]; user: string[]; delivery: string[]; account: string[]; importJob: string[] };

/** Replaced by site A's id when the request is built (the redeliver path names two ids). */
const SITE_A = '{siteA}';
type BodySpec = (ids: Ids) => Record<string, fc.Arbitrary<unknown>>;

interface Endpoint {
  method: string;
  /** With `:id` for the id under test. */
  path: string;
  ids?: keyof Ids;
  body?: BodySpec;
  query?: BodySpec;
}

const text = fc.constantFrom('hello', 'a reply', '  spaced  ', 'Ünïcödé ✓');
const oneOf = (values: string[]) => fc.constantFrom(...values);

export const ENDPOINTS: Endpoint[] = [
  { method: 'GET', path: '/v1/comments', query: (ids) => ({
    site_id: field(oneOf(ids.site)), thread_url: field(fc.constant('https://blog.example.com/fuzz')),
    sort: field(oneOf(['newest', 'oldest', 'top', 'best'])), page: field(fc.integer({ min: 1, max: 3 })), limit: field(fc.integer({ min: 1, max: 100 })),
  }) },
  { method: 'GET', path: '/v1/comments/participants', query: (ids) => ({ site_id: field(oneOf(ids.site)), thread_url: field(fc.constant('https://blog.example.com/fuzz')) }) },
  { method: 'GET', path: '/v1/counts', query: (ids) => ({
    site_id: field(oneOf(ids.site)),
    url: fc.array(fc.oneof(fc.constant('https://blog.example.com/fuzz'), fc.webUrl(), adversarialString), { maxLength: 105 }),
  }) },
  { method: 'GET', path: '/v1/comments/recent', query: (ids) => ({
    site_id: field(oneOf(ids.site)), limit: field(fc.integer({ min: 0, max: 60 })), thread_url: field(fc.constant('https://blog.example.com/fuzz')),
  }) },
  { method: 'GET', path: '/v1/feeds/thread.atom', query: (ids) => ({ site_id: field(oneOf(ids.site)), thread_url: field(fc.constant('https://blog.example.com/fuzz')) }) },
  { method: 'GET', path: '/v1/feeds/site.atom', query: (ids) => ({ site_id: field(oneOf(ids.site)) }) },
  { method: 'GET', path: '/v1/comments/:id', ids: 'comment' },
  { method: 'GET', path: '/v1/widget', query: (ids) => ({ site_id: field(oneOf(ids.site)), lang: field(fc.oneof(oneOf(['de-AT', 'pt', 'zh-TW', 'tlh']), fc.string({ maxLength: 40 }))) }) },
  { method: 'OPTIONS', path: '/v1/comments', query: (ids) => ({ site_id: field(oneOf(ids.site)) }) },
  { method: 'OPTIONS', path: '/v1/comments/:id/vote', ids: 'comment' },
  { method: 'POST', path: '/v1/comments', body: (ids) => ({
    site_id: field(oneOf(ids.site)), thread_url: field(fc.constant('https://blog.example.com/fuzz')), content: field(text),
    parent_id: field(oneOf([...ids.comment, null as unknown as string])), author_name: field(text),
    notify_replies: field(fc.boolean()), email: field(oneOf(['reader@example.com', 'Reader@Example.COM', 'not-an-address'])),
    form_token: field(oneOf(['ft1.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'ft1.99999999999999999999.x', ''])), website: field(text),
    altcha: field(oneOf(['bm90IGEgcHJvb2Y=', Buffer.from('{"signature":1}').toString('base64'), Buffer.from('{"algorithm":"SHA-256","challenge":"x","number":-1,"salt":"?expires=x","signature":"y"}').toString('base64')])),
  }) },
  { method: 'GET', path: '/v1/comments/html', query: (ids) => ({
    site_id: field(oneOf(ids.site)), thread_url: field(fc.constant('https://blog.example.com/fuzz')), sort: field(oneOf(['newest', 'top'])), page: field(fc.integer({ min: 1, max: 3 })),
    lang: field(oneOf(['de', 'ar', 'tlh'])), reply: field(oneOf(ids.comment)), notice: field(oneOf(['held', 'rate_limited', 'validation_failed'])), retry: field(fc.integer({ min: 0, max: 99 })), detail: field(text),
  }) },
  { method: 'POST', path: '/v1/comments/form', body: (ids) => ({
    site_id: field(oneOf(ids.site)), thread_url: field(oneOf(['https://blog.example.com/fuzz', 'https://evil.example/'])), content: field(text),
    parent_id: field(oneOf([...ids.comment, ''])), author_name: field(text), form_token: field(oneOf(['ft1.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', ''])), website: field(text),
  }) },
  { method: 'POST', path: '/v1/comments/preview', body: (ids) => ({ site_id: field(oneOf(ids.site)), content: field(text) }) },
  { method: 'PATCH', path: '/v1/comments/:id', ids: 'comment', body: () => ({ content: field(text) }) },
  { method: 'DELETE', path: '/v1/comments/:id', ids: 'comment' },
  { method: 'POST', path: '/v1/comments/:id/vote', ids: 'comment', body: () => ({ vote_type: field(oneOf(['up', 'down'])) }) },
  { method: 'DELETE', path: '/v1/comments/:id/vote', ids: 'comment' },
  { method: 'POST', path: '/v1/comments/:id/react', ids: 'comment', body: () => ({ reaction_type: field(oneOf(['funny', 'interesting', 'insightful'])) }) },
  { method: 'POST', path: '/v1/comments/:id/flag', ids: 'comment', body: () => ({ reason: field(text) }) },
  { method: 'PATCH', path: '/v1/comments/:id/moderate', ids: 'comment', body: () => ({
    action: field(oneOf(['approve', 'remove', 'spam', 'shadow_ban', 'unhide'])), reason: field(text),
  }) },
  { method: 'POST', path: '/v1/comments/:id/pin', ids: 'comment' },
  { method: 'DELETE', path: '/v1/comments/:id/pin', ids: 'comment' },
  { method: 'POST', path: '/api/comments/:id/pin', ids: 'comment' },
  { method: 'DELETE', path: '/api/comments/:id/pin', ids: 'comment' },
  { method: 'POST', path: '/v1/sessions', body: (ids) => ({
    site_id: field(oneOf(ids.site)),
    user: field(fc.record({ id: field(text), name: field(text), avatar_url: field(fc.constant('https://img.example.com/a.png')), moderator: field(fc.boolean()) }, { requiredKeys: [] })),
  }) },
  { method: 'DELETE', path: '/v1/sessions/current' },
  { method: 'GET', path: '/v1/sites' },
  { method: 'POST', path: '/api/sites', body: () => ({
    name: field(text), domains: field(fc.array(oneOf(['blog.example.com', 'Example.ORG']), { maxLength: 3 })),
    moderation_mode: field(oneOf(['none', 'guests', 'all'])), allow_guests: field(fc.boolean()), reactions: field(fc.array(oneOf(['funny', 'wow']), { maxLength: 3 })),
  }) },
  { method: 'GET', path: '/api/sites/:id', ids: 'site' },
  { method: 'PATCH', path: '/api/sites/:id', ids: 'site', body: () => ({
    name: field(text), moderation_mode: field(oneOf(['none', 'guests', 'all'])), allow_guests: field(fc.boolean()),
    domains: field(fc.array(oneOf(['blog.example.com']), { maxLength: 2 })), reactions: field(fc.array(oneOf(['funny', 'interesting', 'insightful']), { minLength: 1, maxLength: 3 })),
    webhook_url: field(oneOf([null as unknown as string, 'http://127.0.0.1:9/hook', 'http://10.0.0.1/hook', 'http://[::1]/x', 'http://169.254.169.254/latest/meta-data'])),
    webhook_secret: field(oneOf([null as unknown as string, 'a-secret-of-16-chars-or-more', `whsec_${Buffer.alloc(24, 7).toString('base64')}`])),
    webhook_events: field(fc.array(oneOf(['comment.created', 'comment.flagged', 'user.banned']), { maxLength: 3 })),
    spam: field(fc.record({
      enabled: field(fc.boolean()), max_links: field(fc.integer({ min: -1, max: 5 })), proof_of_work: field(oneOf(['off', 'always', 'velocity', 'never'])),
      banned_words: field(fc.array(text, { maxLength: 3 })), min_submit_seconds: field(fc.integer({ min: 0, max: 3 })),
      classifier: field(fc.record({
        mode: field(oneOf(['off', 'hold_above', 'always'])), threshold: field(fc.constantFrom(0.49, 0.5, 0.9, 0.999, 1, -1)), min_examples: field(fc.integer({ min: -1, max: 30 })),
      }, { requiredKeys: [] })),
    }, { requiredKeys: [] })),
  }) },
  { method: 'GET', path: '/api/sites/:id/webhooks/deliveries', ids: 'site', query: () => ({
    page: field(fc.integer({ min: 1, max: 3 })), limit: field(fc.integer({ min: 1, max: 100 })),
    event: field(oneOf(['comment.created', 'user.banned'])), state: field(oneOf(['pending', 'succeeded', 'failed'])),
  }) },
  { method: 'POST', path: '/api/sites/:id/webhooks/test', ids: 'site', body: () => ({ event: field(oneOf(['comment.created', 'subscription.changed'])) }) },
  { method: 'POST', path: `/api/sites/${SITE_A}/webhooks/deliveries/:id/redeliver`, ids: 'delivery' },
  { method: 'POST', path: '/api/keys', body: (ids) => ({ role: field(oneOf(['admin', 'moderator', 'integration'])), name: field(text), site_ids: field(fc.array(oneOf(ids.site), { maxLength: 2 })) }) },
  { method: 'DELETE', path: '/api/keys/:id', ids: 'key' },
  { method: 'POST', path: '/api/sites/:id/bans', ids: 'site', body: (ids) => ({
    user_id: field(oneOf(ids.user)), ban_type: field(oneOf(['ban', 'shadow_ban'])), reason: field(text),
    expires_at: field(oneOf([null as unknown as string, '2999-01-01T00:00:00Z', '2000-01-01T00:00:00Z'])),
  }) },
  // The management API (DELETE /api/sites/:id is left out: a confirmed one would delete the world's site).
  { method: 'GET', path: '/api/comments', query: (ids) => ({
    site_id: field(oneOf(ids.site)), status: field(oneOf(['all', 'pending', 'flagged', 'spam', 'removed', 'published', 'deleted'])),
    q: field(text), author: field(fc.oneof(oneOf(ids.user), text)), thread_url: field(fc.constant(FUZZ_THREAD)), thread: field(fc.oneof(text, fc.constant(FUZZ_THREAD), fc.constant('/'))),
    since: field(fc.constant('2020-01-01T00:00:00Z')),
    until: field(fc.constant('2999-01-01T00:00:00.000Z')), sort: field(oneOf(['newest', 'oldest', 'most_flagged'])), limit: field(fc.integer({ min: 1, max: 100 })),
    cursor: field(oneOf(['WyJxdWV1ZTpuZXdlc3QiLCIyMDMwIiwiY210X3oiXQ', 'e30'])),
  }) },
  { method: 'POST', path: '/api/comments/moderate', body: (ids) => ({
    ids: field(fc.uniqueArray(oneOf(ids.comment), { minLength: 1, maxLength: 3 })), action: field(oneOf(['approve', 'dismiss_flags', 'unhide'])), reason: field(text),
  }) },
  { method: 'POST', path: '/api/comments/moderate/undo', body: (ids) => ({ ids: field(fc.uniqueArray(fc.oneof(oneOf(ids.comment), text), { minLength: 1, maxLength: 3 })) }) },
  { method: 'GET', path: '/api/comments/:id/flags', ids: 'comment' },
  { method: 'GET', path: '/api/comments/:id/revisions', ids: 'comment' },
  { method: 'GET', path: '/api/sites/:id/moderation-log', ids: 'site', query: () => ({ action: field(oneOf(['approve', 'remove'])), since: field(text), until: field(fc.constant('2020-01-01T00:00:00Z')), limit: field(fc.integer({ min: 1, max: 100 })) }) },
  { method: 'GET', path: '/api/moderation-log', query: (ids) => ({
    site_id: field(oneOf(ids.site)), moderator: field(text), action: field(oneOf(['approve', 'remove', 'pin'])), since: field(fc.constant('2020-01-01T00:00:00Z')), until: field(text), limit: field(fc.integer({ min: 1, max: 100 })),
  }) },
  { method: 'GET', path: '/api/sites/:id/threads', ids: 'site', query: () => ({ url: field(fc.constant(FUZZ_THREAD)), closed: field(fc.boolean()), limit: field(fc.integer({ min: 1, max: 100 })) }) },
  { method: 'GET', path: '/api/sites/:id/stats', ids: 'site' },
  { method: 'GET', path: '/api/sites/:id/classifier', ids: 'site' },
  { method: 'GET', path: '/api/sites/:id/bans', ids: 'site', query: (ids) => ({ user_id: field(oneOf(ids.user)), active: field(fc.boolean()) }) },
  { method: 'GET', path: `/api/sites/${SITE_A}/users/:id`, ids: 'user' },
  { method: 'POST', path: '/api/comments', body: (ids) => ({
    site_id: field(oneOf(ids.site)), thread_url: field(oneOf(['https://blog.example.com/fuzz', 'https://evil.example/'])), content: field(text),
    parent_id: field(oneOf([...ids.comment, null as unknown as string])),
  }) },
  { method: 'POST', path: `/api/sites/${SITE_A}/users/:id/notes`, ids: 'user', body: () => ({ body: field(text) }) },
  { method: 'PATCH', path: `/api/sites/${SITE_A}/users/:id`, ids: 'user', body: () => ({
    labels: field(fc.array(oneOf(['Author', 'author', ' Regular ', 'staff', 'x'.repeat(33), 'a\u202Eb', '']), { maxLength: 6 })),
  }) },
  { method: 'GET', path: '/api/sites' },
  { method: 'GET', path: '/api/keys', query: () => ({ include_revoked: field(fc.boolean()) }) },
  { method: 'PATCH', path: '/api/keys/:id', ids: 'key', body: () => ({ name: field(text) }) },
  // Staff sign-in and the team (the fuzzer's credentials are keys and sessions: the cookie's own
  // routes answer them 401 or 403, the body-proven ones check what they are sent).
  { method: 'POST', path: '/api/auth/login', body: () => ({ email: field(oneOf(['owner@example.com', 'nobody@example.com', 'OWNER@EXAMPLE.COM'])), password: field(text) }) },
  { method: 'POST', path: '/api/auth/setup', body: () => ({ token: field(oneOf(['setup_x', 'inv_x'])), email: field(oneOf(['new@example.com'])), name: field(text), password: field(text) }) },
  { method: 'POST', path: '/api/auth/invites/accept', body: () => ({ token: field(oneOf(['invite_x', 'setup_x'])), email: field(oneOf(['new@example.com'])), name: field(text), password: field(text) }) },
  { method: 'POST', path: '/api/auth/reset', body: () => ({ token: field(oneOf(['reset_x'])), password: field(text) }) },
  { method: 'GET', path: '/api/auth/me', query: () => ({ if_signed_in: field(fc.boolean()) }) },
  { method: 'PUT', path: '/api/auth/me/mail', body: () => ({ moderation_mail: field(oneOf(['off', 'pending', 'all'])) }) },
  { method: 'PUT', path: '/api/auth/me/language', body: () => ({ language: field(oneOf(['de', 'ar', 'zh-Hant'])) }) },
  // Mail links and settings (the links' tokens and signatures are fuzzed as they arrive: the query).
  { method: 'GET', path: '/v1/mail/confirm', query: () => ({ token: field(oneOf(['mc_x', 'x'])) }) },
  { method: 'POST', path: '/v1/mail/confirm', query: () => ({ token: field(oneOf(['mc_x', 'x'])) }), body: () => ({ form: field(text) }) },
  { method: 'POST', path: '/v1/mail/unsubscribe', query: () => ({
    address: field(oneOf(['mad_x'])), scope: field(oneOf(['comment', 'thread', 'all'])), target: field(oneOf(['', 'cmt_x'])), sig: field(oneOf(['AAAA'])),
  }), body: () => ({ form: field(text) }) },
  { method: 'PUT', path: '/v1/sessions/current/mail', body: () => ({ notify_replies: field(fc.boolean()) }) },
  { method: 'GET', path: '/api/accounts/:id/members', ids: 'account' },
  { method: 'GET', path: '/api/accounts/:id/invites', ids: 'account' },
  { method: 'POST', path: '/api/accounts/:id/invites', ids: 'account', body: (ids) => ({
    role: field(oneOf(['owner', 'admin', 'moderator'])), site_ids: field(fc.array(oneOf(ids.site), { maxLength: 2 })), email: field(oneOf(['mo@example.com'])),
  }) },
  { method: 'GET', path: '/api/accounts/:id/audit-log', ids: 'account', query: () => ({ page: field(fc.integer({ min: 1, max: 3 })), limit: field(fc.integer({ min: 1, max: 100 })) }) },
  // Signed sign-on. (The live stream stays open until the client leaves, so it is left out here.)
  { method: 'POST', path: '/v1/sso/exchange', body: () => ({ token: field(oneOf(['a.b.c', 'eyJhbGciOiJub25lIn0.e30.'])) }) },
  // Readers signing in by themselves, and their own page.
  { method: 'POST', path: '/v1/auth/email', body: (ids) => ({
    site_id: field(oneOf(ids.site)), email: field(oneOf(['reader@example.com', 'not an address'])), return_to: field(oneOf(['https://blog.example.com/p', 'https://evil.example/', 'javascript:alert(1)'])),
  }) },
  { method: 'POST', path: '/v1/auth/email/verify', body: (ids) => ({
    site_id: field(oneOf(ids.site)), email: field(oneOf(['reader@example.com'])), code: field(oneOf(['000000', '12 34 56', 'x'])), name: field(text),
  }) },
  { method: 'GET', path: '/v1/auth/email/link', query: () => ({ token: field(oneOf(['sil_x', 'x'])) }) },
  { method: 'GET', path: '/v1/auth/providers/:id/start', ids: 'site', query: (ids) => ({
    site_id: field(oneOf(ids.site)), return_to: field(oneOf(['https://blog.example.com/p', 'http://evil.example/'])), mode: field(oneOf(['popup', 'redirect', 'tab'])),
  }) },
  { method: 'GET', path: '/v1/auth/callback', query: () => ({ code: field(text), state: field(oneOf(['x', ''])), error: field(oneOf(['access_denied'])) }) },
  { method: 'GET', path: '/api/sites/:id/identity-providers', ids: 'site' },
  { method: 'POST', path: '/api/sites/:id/identity-providers', ids: 'site', body: () => ({
    type: field(oneOf(['oidc', 'github', 'google', 'gitlab', 'microsoft', 'saml'])), name: field(text), client_id: field(text), client_secret: field(text),
    issuer: field(oneOf(['https://accounts.example.com', 'http://idp.example.com', 'http://127.0.0.1:9', 'ftp://x', null as unknown as string])),
  }) },
  { method: 'GET', path: '/v1/me' },
  { method: 'PATCH', path: '/v1/me', body: () => ({ name: field(text), mention_mail: field(fc.boolean()) }) },
  { method: 'GET', path: '/v1/me/comments', query: () => ({ cursor: field(oneOf(['x', ''])), limit: field(fc.integer({ min: -1, max: 60 })) }) },
  { method: 'POST', path: '/v1/me/guest-comments/claim' },
  { method: 'GET', path: '/api/sites/:id/sso-secrets', ids: 'site' },
  { method: 'POST', path: '/api/sites/:id/sso-secrets', ids: 'site' },
  // Imports take any body as the file: mostly a line Parley's format would start with (a job that fails at once).
  { method: 'POST', path: '/api/sites/:id/imports', ids: 'site', query: () => ({
    dry_run: field(fc.boolean()), format: field(oneOf(['parley', 'disqus', 'wxr', 'remark42', 'commento', 'isso'])), base_url: field(oneOf(['https://blog.example.com/', 'not a url'])),
  }), body: () => ({ type: field(oneOf(['header', 'footer'])), format: field(oneOf(['parley', 'disqus'])), version: field(fc.integer({ min: 0, max: 2 })) }) },
  { method: 'GET', path: '/api/sites/:id/imports', ids: 'site', query: () => ({ page: field(fc.integer({ min: 1, max: 3 })), limit: field(fc.integer({ min: 1, max: 100 })) }) },
  { method: 'GET', path: `/api/sites/${SITE_A}/imports/:id`, ids: 'importJob' },
];

const adversarialId = fc.oneof(
  adversarialString,
  fc.constantFrom('cmt_', 'site_00000000-0000-0000-0000-000000000000', 'cmt_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'x'.repeat(150), 'x'.repeat(250)),
);

/** Raw path segments a client could send: valid percent-encoding or not. */
const rawSegment = fc.constantFrom('%', '%zz', '%ED%A0%80', '%C0%AF', '%00', '..', '.', '%2F', '%252F', ';x=1', 'a%20b');

function pathFor(endpoint: Endpoint, ids: Ids) {
  const template = endpoint.path.replace(SITE_A, ids.site[0]);
  if (!endpoint.ids) return fc.constant(template);
  const id = fc.oneof(
    { weight: 6, arbitrary: oneOf(ids[endpoint.ids]).map(encodeURIComponent) },
    { weight: 2, arbitrary: adversarialId.map(encodeLoosely) },
    { weight: 1, arbitrary: rawSegment },
  );
  return id.map((segment) => template.replace(':id', segment));
}

/** The JSON text of a body: a record of (mostly) hostile fields plus extras, or any JSON at all, or not JSON. */
function bodyFor(endpoint: Endpoint, ids: Ids): fc.Arbitrary<string | Buffer | undefined> {
  const fields = endpoint.body ? endpoint.body(ids) : {};
  const shaped = fc
    .tuple(fc.record(fields, { requiredKeys: [] }), fc.dictionary(adversarialString, adversarialValue, { maxKeys: 2 }))
    .map(([known, extra]) => JSON.stringify({ ...extra, ...known }));
  const depth = fc.integer({ min: 100, max: 20_000 });
  return fc.oneof(
    { weight: 16, arbitrary: shaped },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: depth.map((n) => '['.repeat(n) + ']'.repeat(n)) },
    { weight: 1, arbitrary: depth.map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)) },
    { weight: 1, arbitrary: fc.constantFrom('{', '{"a":1,}', "{'a':1}", 'null', '[]', '"str"', '1e400', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}', 'x'.repeat(70_000)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)) },
    { weight: 1, arbitrary: fc.constant(Buffer.from([0x7b, 0x22, 0x63, 0x6f, 0x6e, 0x74, 0x65, 0x6e, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xed, 0xa0, 0x80, 0x22, 0x7d])) },
  );
}

function queryFor(endpoint: Endpoint, ids: Ids): fc.Arbitrary<string> {
  if (!endpoint.query) return fc.oneof({ weight: 8, arbitrary: fc.constant('') }, fc.constantFrom('?a=1', '?%', '?x=%ED%A0%80&x=2', `?q=${'z'.repeat(5000)}`));
  const params = fc.record(endpoint.query(ids), { requiredKeys: [] });
  const encoded = params.map((values) =>
    Object.entries(values).flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((v) => `${name}=${encodeLoosely(String(v))}`)),
  );
  return fc
    .tuple(encoded, fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(fc.constantFrom('site_id=x', 'page=1', 'limit=%', 'sort=', '%=%', 'thread_url', 'limit=1e2', 'page=0x10'), { maxLength: 2 }) }))
    .map(([pairs, noise]) => `?${[...pairs, ...noise].join('&')}`);
}

const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json; charset=latin1', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', ''];

/** Credentials the fuzzer sends; a session it signs out is replaced so later runs still get past auth. */
function headersFor(pool: string[]): fc.Arbitrary<Record<string, string | string[]>> {
  const valid = fc.nat().map((i) => pool[i % pool.length]);
  const hostileToken = fc.constantFrom('sk_', 'sess_', `sk_${'A'.repeat(40)}`, 'sk_\u00ff\u00fe', 'x'.repeat(8000));
  const token = fc.oneof(valid, hostileToken);
  const credential = fc.oneof(
    { weight: 12, arbitrary: valid.map((t) => ({ authorization: `Bearer ${t}` })) },
    { weight: 3, arbitrary: valid.map((t) => ({ 'x-api-key': t })) },
    { weight: 2, arbitrary: fc.constant({}) },
    {
      weight: 2,
      arbitrary: fc.record(
        {
          authorization: fc.oneof(
            token.map((t) => `Bearer ${t}`),
            fc.constantFrom('Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'bearer  sk_x', 'Bearer a b', 'Token abc'),
            fc.array(token.map((t) => `Bearer ${t}`), { minLength: 2, maxLength: 2 }),
          ),
          'x-api-key': fc.oneof(token, fc.array(token, { minLength: 2, maxLength: 2 })),
        },
        { requiredKeys: [] },
      ),
    },
  );
  const extra = fc.record(
    {
      'content-type': oneOf(CONTENT_TYPES),
      'x-forwarded-for': fc.constantFrom('1.2.3.4', '::1, 10.0.0.1', 'garbage'),
      'content-encoding': fc.constantFrom('gzip', 'identity'),
      'transfer-encoding': fc.constant('identity'),
    },
    { requiredKeys: [] },
  );
  const rareExtra = fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: extra });
  // Browsers on other sites: the widget's endpoints answer them with CORS (and preflights).
  const crossOrigin = fc.oneof(
    { weight: 2, arbitrary: fc.constant({}) },
    {
      weight: 1,
      arbitrary: fc.record(
        {
          origin: fc.constantFrom('https://blog.example.com', 'https://evil.example.net', 'null', 'not a url', 'https://\u00ff'),
          'access-control-request-method': fc.constantFrom('POST', 'DELETE', 'BREW'),
        },
        { requiredKeys: ['origin'] },
      ),
    },
  );
  return fc
    .tuple(credential, rareExtra, crossOrigin)
    .map(([auth, headers, cors]) => Object.fromEntries(Object.entries({ ...headers, ...cors, ...auth }).filter(([, v]) => v !== undefined)) as Record<string, string | string[]>);
}

export function requestArbitrary(pool: string[], ids: Ids): fc.Arbitrary<{ endpoint: Endpoint; raw: RawRequest }> {
  return fc.constantFrom(...ENDPOINTS).chain((endpoint) =>
    fc
      .record({
        path: pathFor(endpoint, ids),
        query: queryFor(endpoint, ids),
        body: bodyFor(endpoint, ids),
        headers: headersFor(pool),
        typed: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      })
      .map(({ path, query, body, headers, typed }) => {
        const all = { ...headers };
        // Most bodies come with the JSON content type so validation, not the media type, is what is tested.
        if (typed && body !== undefined) all['content-type'] = 'application/json';
        if (body === undefined) delete all['content-type'];
        return { endpoint, raw: { method: endpoint.method, path: path + query, headers: all, body } };
      }),
  );
}

const DOCUMENTED = new Set([200, 201, 202, 204, 304, 400, 401, 403, 404, 409, 413, 415, 429, 431]);

/** What answers an endpoint that is not JSON: the thread as HTML, and its form's redirect back to the page. */
const HTML_ANSWERS = new Set(['/v1/comments/html']);
const REDIRECTS = new Set(['/v1/comments/form']);

/** The contract's promises about one answer; returns what broke, or null. */
export function brokenPromise(response: RawResponse, path = ''): string | null {
  if (response.status === 0) return response.text;
  if (response.status >= 500) return `a ${response.status}`;
  if (response.status === 303 && REDIRECTS.has(path)) return response.headers.location ? null : 'a 303 without Location';
  if (response.status === 200 && HTML_ANSWERS.has(path)) return String(response.headers['content-type']).startsWith('text/html') ? null : `HTML without text/html: ${response.headers['content-type']}`;
  if (!DOCUMENTED.has(response.status)) return `undocumented status ${response.status}`;
  if (response.status >= 400) {
    if (!String(response.headers['content-type']).startsWith('application/problem+json')) return `error without problem+json: ${response.headers['content-type']}`;
    const problem = response.json;
    if (!problem || typeof problem.type !== 'string' || typeof problem.title !== 'string' || typeof problem.detail !== 'string') return 'incomplete problem body';
    if (problem.status !== response.status) return `problem.status ${problem.status} on a ${response.status}`;
    if (ERROR_STATUS[problem.code as keyof typeof ERROR_STATUS] !== response.status) return `code ${problem.code} on a ${response.status}`;
  } else if (response.status !== 204 && !/^application\/(json|atom\+xml)\b/.test(String(response.headers['content-type']))) {
    // JSON everywhere but the Atom feeds (/v1/feeds/*.atom).
    return `success without JSON: ${response.headers['content-type']}`;
  }
  return null;
}

function mayBeUnrouted(path: string): boolean {
  return path.split('?')[0].split('/').some((segment) => {
    try {
      decodeURIComponent(segment);
      return segment.length > 200;
    } catch {
      return true;
    }
  });
}

/**
 * The policy a fuzzed request must count against, as docs/api.md, "Rate limits", states it: the
 * credential it sends (a live key, a live session, none, or a refused one), whether it creates a
 * comment and whether that failed. undefined when the test cannot tell (repeated credential headers).
 */
function expectedPolicy(raw: RawRequest, response: RawResponse, world: World, pool: string[]): PolicyName | null | undefined {
  const headers = raw.headers ?? {};
  if (raw.method === 'OPTIONS' && headers['access-control-request-method'] !== undefined) return null;
  // Refused by Node's HTTP parser before any request exists: nothing is counted (docs/api.md, "Limits on requests").
  if (response.status === 431 || response.json?.detail === 'The request is not valid HTTP/1.1') return null;
  // Answered before routing (path not decodable, parameter too long), the credential is never read;
  // a 429 does not say whether that is why it counted against the IP.
  if (mayBeUnrouted(raw.path)) {
    return response.json?.code === 'malformed_request' || response.json?.errors?.[0]?.path === 'params' ? 'ip' : undefined;
  }
  const { authorization, 'x-api-key': apiKey } = headers;
  let token: string | null;
  if (typeof authorization === 'string') token = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] ?? 'refused';
  else if (authorization === undefined && typeof apiKey !== 'object') token = apiKey || null;
  else return undefined;
  const { integrationKey, moderatorKey, adminKey, otherAccountKey, expiredSession } = world.credential;
  if (token !== null && [integrationKey, moderatorKey, adminKey, otherAccountKey].includes(token)) return 'api-key';
  const createsComment = raw.method === 'POST' && raw.path.split('?')[0] === '/v1/comments';
  const live = token === null || (pool.includes(token) && token !== expiredSession && token.startsWith('sess_'));
  if (!createsComment || !live) return 'ip';
  // A creation counts under its comment limit; one that fails, under the IP limit instead. A 429
  // is either limit's, as its detail says: the comment limit used up, or the IP's requests.
  const commentLimit = token === null ? 'guest-comments' : 'session-comments';
  if (response.status === 429) return String(response.json?.detail).includes('(ip);') ? 'ip' : commentLimit;
  return response.status >= 400 ? 'ip' : commentLimit;
}

/**
 * What a failed request must not change, read back through the API as the site's admin: the thread
 * (every comment, counts, states), the site's settings and the account's sites. Read from the
 * world's own server, whose rate limits are off, so reading never uses up the limits under test.
 */
async function snapshot(world: World): Promise<string> {
  const admin = { authorization: `Bearer ${world.adminKey}` };
  const base = world.parley.url;
  const [thread, site, sites] = await Promise.all([
    send(base, { method: 'GET', path: `/v1/comments?site_id=${world.siteA}&thread_url=${encodeURIComponent(FUZZ_THREAD)}&sort=oldest&limit=100`, headers: admin }),
    send(base, { method: 'GET', path: `/api/sites/${world.siteA}`, headers: admin }),
    send(base, { method: 'GET', path: '/v1/sites', headers: admin }),
  ]);
  return JSON.stringify([thread.json, site.json, sites.json]);
}

export const FUZZ_THREAD = 'https://blog.example.com/fuzz';

/** The ids the fuzzer aims at: real ones of the world (so requests get past the lookups) and strangers. */
export async function fuzzTargets(world: World): Promise<Ids> {
  const comments = await Promise.all(
    [world.credential.user, world.credential.otherUser, world.adminKey, null].map(async (token) => {
      const response = await world.parley.request('POST', '/v1/comments', { token: token ?? undefined, body: { site_id: world.siteA, thread_url: FUZZ_THREAD, content: 'target' } });
      return response.body.id as string;
    }),
  );
  const key = await world.parley.request('POST', '/api/keys', { token: world.adminKey, body: { role: 'integration' } });
  const user = await world.newUser('fuzz-target');
  const delivery = await world.parley.request('GET', `/api/sites/${world.siteA}/webhooks/deliveries?limit=1`, { token: world.adminKey });
  const importJob = await world.parley.request('POST', `/api/sites/${world.siteA}/imports?dry_run=true`, { token: world.adminKey, body: { type: 'header', format: 'parley', version: 1 } });
  return {
    comment: [...comments, world.userComment],
    site: [world.siteA, world.siteB],
    key: [key.body.id],
    user: [user.id],
    delivery: [delivery.body.deliveries?.[0]?.id ?? 'del_none'],
    account: [world.accountA],
    importJob: [importJob.body.id],
  };
}

/** Runs the property; every broken promise is recorded in stats (and fails the property). */
export async function fuzzEndpoints(fuzzing: FuzzWorld, stats: FuzzStats, numRuns: number, seed?: number): Promise<void> {
  const { world, target, limits } = fuzzing;
  const ids = await fuzzTargets(world);
  let before = await snapshot(world);
  const pool = Object.values(world.credential).filter((token): token is string => token !== null);
  await fc.assert(
    fc.asyncProperty(requestArbitrary(pool, ids), async ({ endpoint, raw }) => {
      const response = await send(target, raw).catch((error: Error & { code?: string }) => ({
        status: 0,
        headers: {},
        text: `no answer: ${error.code ?? error.message}`,
        json: undefined,
      }));
      stats.requests += 1;
      const outcome = `${response.status}${response.json?.code ? ` ${response.json.code}` : ''}`;
      stats.statuses[outcome] = (stats.statuses[outcome] ?? 0) + 1;
      if (response.status >= 400) stats.badInputs += 1;
      if (response.status >= 500) stats.serverErrors += 1;
      const after = await snapshot(world);
      let broken = brokenPromise(response, endpoint.path);
      if (!broken && limits && response.status !== 0) {
        broken = brokenLimitHeaders(response, limits, expectedPolicy(raw, response, world, pool));
      }
      if (!broken && response.status >= 400 && after !== before) broken = 'a failed request changed data';
      before = after;
      if (endpoint.path === '/v1/sessions/current' && response.status === 204) {
        const used = pool.findIndex((token) => String(raw.headers?.authorization ?? raw.headers?.['x-api-key']).includes(token));
        if (used >= 0) pool[used] = (await world.newUser(`fuzz-${stats.requests}`)).token;
      }
      if (broken) {
        stats.failures.push(`${endpoint.method} ${endpoint.path}: ${broken} (${raw.method} ${raw.path.slice(0, 120)} → ${response.status} ${response.text.slice(0, 200)})`);
        throw new Error(stats.failures.at(-1));
      }
    }),
    { numRuns, seed, endOnFailure: true },
  );
}

export interface FuzzWorld {
  world: World;
  /** The server the fuzzer sends to: the world's own, or one with rate limits on the same database. */
  target: string;
  limits: Limits | null;
  close(): Promise<void>;
}

/**
 * The world the fuzzer runs in: site A has webhooks to a live receiver, so delivery paths run too.
 * With `limits`, the fuzzer's requests go to a second instance on the same database that enforces
 * them, while the world is built and read back through the first, unlimited one.
 */
export async function startFuzzWorld(limits: Limits | null = null): Promise<FuzzWorld> {
  const receiver = await startReceiver();
  // Mail on, so "email me replies" and moderation mails are queued; nothing listens there, so none leaves.
  const mail = { PARLEY_SMTP_URL: 'smtp://127.0.0.1:9', PARLEY_MAIL_FROM: 'fuzz@example.com' };
  const world = await buildWorld(await startParley({ ...NO_RATE_LIMITS, ...WEBHOOK_TEST_ENV, ...mail }));
  await subscribe(world.parley, { site_id: world.siteA, api_key: world.adminKey }, receiver.url, ['comment.created', 'comment.flagged']);
  let limited: TestParley | undefined;
  if (limits) limited = await startParley({ ...WEBHOOK_TEST_ENV, ...mail, ...limitsEnv(limits), DATABASE_URL: world.parley.config.databaseUrl });
  return {
    world,
    target: limited?.url ?? world.parley.url,
    limits,
    close: async () => {
      await limited?.close();
      await world.parley.close();
      await receiver.close();
    },
  };
}
