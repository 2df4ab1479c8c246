import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, parleysPerTest, startParley, type TestParley } from '../../test/helper.ts';
import { addStaff, signInStaff, STAFF_PASSWORD, staffEmail } from '../../test/staff.ts';
import { moderateComment } from '../moderation/service.ts';
import { staffCallerOfToken } from './sessions.ts';

let parley: TestParley;
beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

async function ownedAccount() {
  const site = await parley.newSite();
  const owner = await addStaff(parley, site.account_id, 'owner');
  return { site, owner, session: await signInStaff(parley, owner.email) };
}

async function invites(accountId: string, apiKey: string): Promise<unknown[]> {
  return (await parley.request('GET', `/api/accounts/${accountId}/invites`, { token: apiKey })).body.invites;
}

describe('CSRF', () => {
  it('refuses a change made with the cookie but without its token, or with another session\'s token', async () => {
    const { site, session } = await ownedAccount();
    const second = await ownedAccount();
    const path = `/api/accounts/${site.account_id}/invites`;
    const body = { role: 'admin' };
    const without = await parley.request('POST', path, { headers: { cookie: session.cookie }, body });
    expect(without.status).toBe(403);
    expect(without.body).toMatchObject({ code: 'forbidden', detail: expect.stringContaining('X-CSRF-Token') });
    for (const token of [second.session.csrf, 'made-up-token', '']) {
      const refused = await parley.request('POST', path, { headers: { cookie: session.cookie, 'x-csrf-token': token }, body });
      expect(refused.status, token).toBe(403);
      expect(refused.body.code).toBe('forbidden');
    }
    // Also before the body is looked at, and on every kind of change.
    expect((await parley.request('PATCH', `/api/sites/${site.site_id}`, { headers: { cookie: session.cookie }, body: { name: 'Taken over' } })).status).toBe(403);
    expect((await parley.request('POST', '/api/auth/logout', { headers: { cookie: session.cookie } })).status).toBe(403);
    expect(await invites(site.account_id, site.api_key)).toEqual([]);
    // Reads need no token; the token of the sign-in works.
    expect((await parley.request('GET', path, { headers: { cookie: session.cookie } })).status).toBe(200);
    expect((await parley.request('POST', path, { headers: session.headers, body })).status).toBe(201);
  });

  it('keeps a token from working once its session has ended', async () => {
    const { owner, session } = await ownedAccount();
    await parley.request('POST', '/api/auth/logout', { headers: session.headers });
    const again = await signInStaff(parley, owner.email);
    const stale = await parley.request('POST', '/api/auth/logout', { headers: { cookie: again.cookie, 'x-csrf-token': session.csrf } });
    expect(stale.status).toBe(403);
  });
});

describe('cross-origin requests', () => {
  it('are refused with the cookie, for reads and changes alike', async () => {
    const { site, session } = await ownedAccount();
    const crossOrigin: Array<Record<string, string>> = [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { origin: 'null' }];
    for (const headers of crossOrigin) {
      const read = await parley.request('GET', '/api/auth/me', { headers: { ...session.headers, ...headers } });
      expect(read.status, JSON.stringify(headers)).toBe(403);
      expect(read.body.detail).toMatch(/another origin/);
      const change = await parley.request('POST', `/api/accounts/${site.account_id}/invites`, { headers: { ...session.headers, ...headers }, body: { role: 'admin' } });
      expect(change.status).toBe(403);
    }
    expect(await invites(site.account_id, site.api_key)).toEqual([]);
    const sameOrigin = await parley.request('GET', '/api/auth/me', { headers: { ...session.headers, origin: parley.url, 'sec-fetch-site': 'same-origin' } });
    expect(sameOrigin.status).toBe(200);
  });

  it('cannot sign in (no login CSRF) and get no cookie', async () => {
    const { owner } = await ownedAccount();
    const response = await parley.request('POST', '/api/auth/login', { body: { email: owner.email, password: STAFF_PASSWORD }, headers: { origin: 'https://evil.example' } });
    expect(response.status).toBe(403);
    expect(response.headers.get('set-cookie')).toBeNull();
  });

  it('get no CORS headers from the management API', async () => {
    const { session } = await ownedAccount();
    const preflight = await parley.request('OPTIONS', '/api/auth/me', { headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' } });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
    const read = await parley.request('GET', '/api/auth/me', { headers: { ...session.headers, origin: 'https://evil.example' } });
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('the cookie', () => {
  it('is never accepted under /v1, and /v1 answers never set one', async () => {
    const { site, session } = await ownedAccount();
    const sites = await parley.request('GET', '/v1/sites', { headers: session.headers });
    expect(sites.status).toBe(401);
    const posted = await parley.request('POST', '/v1/comments', { headers: session.headers, body: { site_id: site.site_id, thread_url: pageUrl(), content: 'who am I?', author_name: 'Guest' } });
    expect(posted.status).toBe(201);
    expect(posted.body.author_name).toBe('Guest');
    const list = await parley.request('GET', `/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent(pageUrl())}`, { headers: session.headers });
    const moderate = await parley.request('PATCH', `/v1/comments/${posted.body.id}/moderate`, { headers: session.headers, body: { action: 'remove' } });
    expect(moderate.status).toBe(401);
    for (const answer of [sites, posted, list, moderate]) expect(answer.headers.get('set-cookie')).toBeNull();
  });

  it('is Secure when the request came over HTTPS through a trusted proxy, and only then', async () => {
    const parleys = [await startParley({ TRUST_PROXY: '127.0.0.1' }), await startParley()];
    try {
      const cookies: Array<string | null> = [];
      for (const server of parleys) {
        const site = await server.newSite();
        const { email } = await addStaff(server, site.account_id, 'owner');
        for (const proto of ['https', 'http']) {
          const response = await server.request('POST', '/api/auth/login', { body: { email, password: STAFF_PASSWORD }, headers: { 'x-forwarded-proto': proto } });
          cookies.push(response.headers.get('set-cookie'));
        }
      }
      expect(cookies.map((cookie) => /; Secure/.test(cookie!))).toEqual([true, false, false, false]);
    } finally {
      await Promise.all(parleys.map((server) => server.close()));
    }
  });

  it('a credential header wins over the cookie, which then needs no CSRF token', async () => {
    const { site, session } = await ownedAccount();
    const response = await parley.request('POST', `/api/accounts/${site.account_id}/invites`, { token: site.api_key, headers: { cookie: session.cookie }, body: { role: 'moderator' } });
    expect(response.status).toBe(201);
    expect(response.body.created_by).toMatch(/^key_/);
  });
});

describe('secrets at rest', () => {
  it('keeps only hashes of passwords, session tokens and link tokens', async () => {
    const { site, session, owner } = await ownedAccount();
    const invited = await parley.request('POST', `/api/accounts/${site.account_id}/invites`, { headers: session.headers, body: { role: 'admin' } });
    const db = parley.app.db.kysely;
    const staff = await db.selectFrom('staff').selectAll().where('email', '=', owner.email).executeTakeFirstOrThrow();
    expect(staff.password_hash).toMatch(/^scrypt\$32768\$8\$3\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    const stored = JSON.stringify([await db.selectFrom('staff_sessions').selectAll().execute(), await db.selectFrom('staff_links').selectAll().execute(), staff]);
    expect(stored).not.toContain(session.cookie.split('=')[1]);
    expect(stored).not.toContain(invited.body.token);
    expect(stored).not.toContain(STAFF_PASSWORD);
  });
});

describe('roles', () => {
  it('admins and admin keys manage everyone below owner, never owners', async () => {
    const { site, owner } = await ownedAccount();
    const admin = await signInStaff(parley, (await addStaff(parley, site.account_id, 'admin')).email);
    const otherAdmin = await addStaff(parley, site.account_id, 'admin');
    const ownerId = (await signInStaff(parley, owner.email)).body.staff.id;
    const team = `/api/accounts/${site.account_id}`;
    for (const credential of [{ headers: admin.headers }, { token: site.api_key }]) {
      expect((await parley.request('POST', `${team}/invites`, { ...credential, body: { role: 'owner' } })).status).toBe(403);
      expect((await parley.request('PATCH', `${team}/members/${otherAdmin.id}`, { ...credential, body: { role: 'owner' } })).status).toBe(403);
      expect((await parley.request('PATCH', `${team}/members/${ownerId}`, { ...credential, body: { role: 'moderator' } })).status).toBe(403);
      expect((await parley.request('DELETE', `${team}/members/${ownerId}`, credential)).status).toBe(403);
      expect((await parley.request('POST', `${team}/members/${ownerId}/reset-link`, credential)).status).toBe(403);
      // A reset link would let one admin sign in as another.
      expect((await parley.request('POST', `${team}/members/${otherAdmin.id}/reset-link`, credential)).status).toBe(403);
    }
    const ownerInvite = await parley.request('POST', `${team}/invites`, { headers: (await signInStaff(parley, owner.email)).headers, body: { role: 'owner' } });
    expect((await parley.request('DELETE', `${team}/invites/${ownerInvite.body.id}`, { headers: admin.headers })).status).toBe(403);
  });

  it('moderators, integration and moderator keys, site-limited admin keys and commenters do not manage the team or sites', async () => {
    const { site } = await ownedAccount();
    const moderator = await signInStaff(parley, (await addStaff(parley, site.account_id, 'moderator')).email);
    const key = async (body: unknown) => (await parley.request('POST', '/api/keys', { token: site.api_key, body })).body.api_key as string;
    const commenter = await parley.signIn(site.api_key, site.site_id, { id: 'c', name: 'C', moderator: true });
    const callers = [{ headers: moderator.headers }, { token: await key({ role: 'moderator' }) }, { token: await key({ role: 'integration' }) }, { token: await key({ role: 'admin', site_ids: [site.site_id] }) }, { token: commenter }];
    for (const caller of callers) {
      expect((await parley.request('GET', `/api/accounts/${site.account_id}/members`, caller)).status).toBe(403);
      expect((await parley.request('POST', `/api/accounts/${site.account_id}/invites`, { ...caller, body: { role: 'moderator' } })).status).toBe(403);
    }
    expect((await parley.request('GET', `/api/sites/${site.site_id}`, { headers: moderator.headers })).status).toBe(403);
  });

  it('people of one account do not see another: 404', async () => {
    const mine = await ownedAccount();
    const theirs = await ownedAccount();
    expect((await parley.request('GET', `/api/accounts/${theirs.site.account_id}/members`, { headers: mine.session.headers })).status).toBe(404);
    expect((await parley.request('GET', `/api/sites/${theirs.site.site_id}`, { headers: mine.session.headers })).status).toBe(404);
    expect((await parley.request('GET', `/api/accounts/${theirs.site.account_id}/members`, { token: mine.site.api_key })).status).toBe(404);
  });

  it('a reset link is refused for a person who belongs to accounts the issuer does not own', async () => {
    const victim = await ownedAccount();
    const attacker = await ownedAccount();
    // The victim, owner elsewhere, also moderates the attacker's account.
    await addStaff(parley, attacker.site.account_id, 'moderator', { email: victim.owner.email });
    const path = `/api/accounts/${attacker.site.account_id}/members/${victim.session.body.staff.id}/reset-link`;
    for (const credential of [{ headers: attacker.session.headers }, { token: attacker.site.api_key }]) {
      const refused = await parley.request('POST', path, credential);
      expect(refused.status).toBe(403);
      expect(refused.body.detail).toMatch(/other accounts/);
    }
  });

  it('a removed member reaches the account no more, even signed in', async () => {
    const { site, session } = await ownedAccount();
    const admin = await signInStaff(parley, (await addStaff(parley, site.account_id, 'admin')).email);
    await parley.request('DELETE', `/api/accounts/${site.account_id}/members/${admin.body.staff.id}`, { headers: session.headers });
    expect((await parley.request('GET', `/api/sites/${site.site_id}`, { headers: admin.headers })).status).toBe(403);
    expect((await parley.request('GET', `/api/accounts/${site.account_id}/members`, { headers: admin.headers })).status).toBe(403);
  });

  it('a moderator limited to some sites moderates those only', async () => {
    const { site, session } = await ownedAccount();
    const other = await parley.request('POST', '/api/sites', { headers: session.headers, body: { name: 'Other' } });
    const moderator = await addStaff(parley, site.account_id, 'moderator', { siteIds: [other.body.id] });
    const cookie = (await signInStaff(parley, moderator.email)).cookie;
    const signedIn = (await staffCallerOfToken(parley.app.db.kysely, cookie.split('=')[1], '127.0.0.1'))!.caller;
    const post = async (siteId: string) =>
      (await parley.request('POST', '/v1/comments', { token: site.api_key, body: { site_id: siteId, thread_url: pageUrl(), content: 'hi' } })).body.id as string;
    await expect(moderateComment(parley.app.db, signedIn, await post(site.site_id), 'remove', null)).rejects.toMatchObject({ code: 'not_found' });
    await expect(moderateComment(parley.app.db, signedIn, await post(other.body.id), 'remove', null)).resolves.toMatchObject({ status: 'removed' });
  });
});

describe('staff and commenters', () => {
  it('are apart: a commenter session never signs in as staff, and minting sessions makes no staff', async () => {
    const { site, owner } = await ownedAccount();
    const before = await parley.app.db.kysely.selectFrom('staff').select('id').execute();
    const commenter = await parley.signIn(site.api_key, site.site_id, { id: owner.email, name: 'Olive', moderator: true });
    expect((await parley.request('GET', '/api/auth/me', { token: commenter })).status).toBe(403);
    expect((await parley.request('GET', `/api/accounts/${site.account_id}/members`, { token: commenter })).status).toBe(403);
    expect(await parley.app.db.kysely.selectFrom('staff').select('id').execute()).toEqual(before);
    expect((await parley.request('POST', '/api/auth/login', { body: { email: staffEmail('commenter'), password: STAFF_PASSWORD } })).status).toBe(401);
  });
});

describe('sign-in limits in a fresh server', () => {
  const startFresh = parleysPerTest();
  it('limit password changes too (a stolen session cannot guess the password at leisure)', async () => {
    const fresh = await startFresh({ PARLEY_LOGIN_ATTEMPTS_PER_ACCOUNT: '2' });
    const site = await fresh.newSite();
    const session = await signInStaff(fresh, (await addStaff(fresh, site.account_id, 'owner')).email);
    const change = (current: string) => fresh.request('POST', '/api/auth/password', { headers: session.headers, body: { current_password: current, new_password: 'another password' } });
    // Two free wrong guesses, a third that holds the account a second, and the right one within it.
    const answers = [await change('guess one'), await change('guess two'), await change('guess three'), await change(STAFF_PASSWORD)];
    expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401, 429]);
  });
});
