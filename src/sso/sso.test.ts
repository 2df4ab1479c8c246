import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl, startParley, type FreshDatabase, type TestParley } from '../../test/helper.ts';

/** Signs as a site's backend would, with nothing but node:crypto (the example of docs/sign-in.md, "Readers: signed sign-on (SSO)"). */
function sign(secret: string, claims: Record<string, unknown>, header: Record<string, unknown>): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const body = `${part(header)}.${part(claims)}`;
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

let database: FreshDatabase;
let one: TestParley;
let two: TestParley;
let site: { site_id: string; api_key: string };
let other: { site_id: string; api_key: string };
let key: { id: string; secret: string };
let otherKey: { id: string; secret: string };

async function newSecret(parley: TestParley, s: { site_id: string; api_key: string }) {
  const response = await parley.request('POST', `/api/sites/${s.site_id}/sso-secrets`, { token: s.api_key });
  expect(response.status).toBe(201);
  return response.body as { id: string; secret: string; created_at: string };
}

const now = () => Math.floor(Date.now() / 1000);
function claims(overrides: Record<string, unknown> = {}) {
  return { iss: site.site_id, aud: 'parley', sub: 'user-42', name: 'Ada', iat: now(), exp: now() + 300, jti: randomUUID(), ...overrides };
}
const tokenFor = (overrides: Record<string, unknown> = {}, secret = key.secret, kid: string = key.id) =>
  sign(secret, claims(overrides), { alg: 'HS256', typ: 'JWT', kid });
const exchange = (parley: TestParley, token: string) => parley.request('POST', '/v1/sso/exchange', { body: { token } });

beforeAll(async () => {
  // Two instances on one database: a token used on one is refused on the other.
  database = await freshDatabaseUrl();
  one = await startParley({ DATABASE_URL: database.url });
  two = await startParley({ DATABASE_URL: database.url });
  site = await one.newSite();
  other = await one.newSite();
  key = await newSecret(one, site);
  otherKey = await newSecret(one, other);
});

afterAll(async () => {
  await two.close();
  await one.close();
  await database.drop();
});

describe('POST /v1/sso/exchange', () => {
  it('answers a session for the token\'s user, who then posts as themself', async () => {
    const response = await exchange(one, tokenFor({ avatar_url: 'https://example.com/ada.png', email: 'ada@example.com' }));
    expect(response.status).toBe(201);
    expect(response.body.user).toMatchObject({ external_id: 'user-42', name: 'Ada', avatar_url: 'https://example.com/ada.png', moderator: false });
    const posted = await one.request('POST', '/v1/comments', {
      token: response.body.token,
      body: { site_id: site.site_id, thread_url: 'https://blog.example.com/a', content: 'Signed in by token' },
    });
    expect(posted.status).toBe(201);
    expect(posted.body.author_name).toBe('Ada');
  });

  it('is the same user for the same sub, whatever the e-mail; a newer token renames them, an older one does not', async () => {
    const first = await exchange(one, tokenFor({ sub: 'same', name: 'Old name', email: 'a@example.com', iat: now() - 100 }));
    const renamed = await exchange(one, tokenFor({ sub: 'same', name: 'New name', email: 'b@example.com' }));
    const stale = await exchange(one, tokenFor({ sub: 'same', name: 'Stale name', iat: now() - 200 }));
    expect(renamed.body.user.id).toBe(first.body.user.id);
    expect(renamed.body.user.name).toBe('New name');
    expect(stale.body.user.name).toBe('New name');
  });

  it('honours the moderator claim only when the site turns it on', async () => {
    expect((await exchange(one, tokenFor({ sub: 'mo', moderator: true }))).body.user.moderator).toBe(false);
    await one.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { sso_moderators: true } });
    expect((await exchange(one, tokenFor({ sub: 'mo', moderator: true }))).body.user.moderator).toBe(true);
    await one.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { sso_moderators: false } });
  });

  it('refuses a replayed token, also on another instance', async () => {
    const token = tokenFor();
    expect((await exchange(one, token)).status).toBe(201);
    const again = await exchange(two, token);
    expect(again.status).toBe(401);
    expect(again.body).toMatchObject({ code: 'unauthorized', reason: 'replayed' });
  });

  const header = (h: Record<string, unknown>) => Buffer.from(JSON.stringify(h)).toString('base64url');
  const bad: Array<[string, () => string, string]> = [
    ['expired', () => tokenFor({ iat: now() - 900, exp: now() - 120 }), 'expired'],
    ['not yet valid', () => tokenFor({ iat: now() + 300, exp: now() + 600 }), 'not_yet_valid'],
    ['bad signature', () => tokenFor({}, 'not-the-secret'), 'bad_signature'],
    ['unknown key', () => tokenFor({}, key.secret, 'sso_unknown'), 'unknown_key'],
    ['missing sub', () => tokenFor({ sub: undefined }), 'missing_claim'],
    ['missing jti', () => tokenFor({ jti: undefined }), 'missing_claim'],
    ['missing aud', () => tokenFor({ aud: undefined }), 'missing_claim'],
    ['iat in milliseconds', () => tokenFor({ iat: Date.now(), exp: Date.now() + 300_000 }), 'iat_in_milliseconds'],
    ['a lifetime over 15 minutes', () => tokenFor({ exp: now() + 3600 }), 'lifetime_too_long'],
    ['another audience', () => tokenFor({ aud: 'someone-else' }), 'wrong_audience'],
    ['alg none', () => `${header({ alg: 'none', kid: key.id })}.${header(claims())}.`, 'unsupported_algorithm'],
    ['alg HS512', () => sign(key.secret, claims(), { alg: 'HS512', kid: key.id }), 'unsupported_algorithm'],
    ['no kid', () => sign(key.secret, claims(), { alg: 'HS256' }), 'missing_kid'],
    ["signed with another site's secret, naming this site", () => tokenFor({}, otherKey.secret, otherKey.id), 'wrong_issuer'],
    ["another site's secret id with this site's claims and secret", () => tokenFor({}, key.secret, otherKey.id), 'bad_signature'],
    ['for another site', () => tokenFor({ iss: other.site_id }), 'wrong_issuer'],
    ['not a JWT', () => 'hello', 'malformed'],
    ['naming its user with a right-to-left override', () => tokenFor({ name: 'Ada \u202Enimda' }), 'invalid_claim'],
    ['naming its user with a zero-width space', () => tokenFor({ name: 'Ad\u200Ba' }), 'invalid_claim'],
    ['giving a comma list of addresses', () => tokenFor({ email: 'ada@example.com,eve@example.com' }), 'invalid_claim'],
    ['giving an address with a display name', () => tokenFor({ email: 'Ada <ada@example.com>' }), 'invalid_claim'],
    ['giving an address without a domain', () => tokenFor({ email: 'ada' }), 'invalid_claim'],
  ];

  it.each(bad)('refuses a token %s, saying why and what time it is', async (_name, make, reason) => {
    const response = await exchange(one, make());
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ code: 'unauthorized', reason });
    expect(Math.abs(Date.parse(response.body.server_time) - Date.now())).toBeLessThan(5000);
  });

  it('accepts a token 50 s past its expiry (clock tolerance)', async () => {
    expect((await exchange(one, tokenFor({ iat: now() - 300, exp: now() - 50 }))).status).toBe(201);
  });
});

describe('SSO secrets', () => {
  it('rotate without downtime: old and new both work until the old is deleted', async () => {
    const fresh = await newSecret(one, site);
    expect((await exchange(one, tokenFor({}, key.secret, key.id))).status).toBe(201);
    expect((await exchange(one, tokenFor({}, fresh.secret, fresh.id))).status).toBe(201);
    const listed = await one.request('GET', `/api/sites/${site.site_id}/sso-secrets`, { token: site.api_key });
    expect(listed.body.secrets.map((s: { id: string }) => s.id)).toEqual([key.id, fresh.id]);
    expect(JSON.stringify(listed.body)).not.toContain(key.secret);
    expect((await one.request('DELETE', `/api/sites/${site.site_id}/sso-secrets/${key.id}`, { token: site.api_key })).status).toBe(200);
    expect((await exchange(one, tokenFor({}, key.secret, key.id))).body.reason).toBe('unknown_key');
    expect((await exchange(two, tokenFor({}, fresh.secret, fresh.id))).status).toBe(201);
    key = fresh;
  });

  it('are at most three per site', async () => {
    const s = await one.newSite();
    for (let i = 0; i < 3; i++) await newSecret(one, s);
    const fourth = await one.request('POST', `/api/sites/${s.site_id}/sso-secrets`, { token: s.api_key });
    expect(fourth.status).toBe(409);
  });
});
