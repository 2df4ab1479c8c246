import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGithubServer, type TestGithubServer } from '../../../test/github-server.ts';
import { startParley, type TestParley } from '../../../test/helper.ts';
import { freePort, startOidcProvider, type TestOidcProvider } from '../../../test/oidc-provider.ts';
import { startScriptedIssuer, type ScriptedIssuer } from '../../../test/scripted-issuer.ts';
import { findSite } from '../../sites/repository.ts';
import { EMAIL_PROVIDER, signInReader } from '../sign-in.ts';

let parley: TestParley;
let op: TestOidcProvider;
let github: TestGithubServer;
let scripted: ScriptedIssuer;
let site: { site_id: string; api_key: string };
let other: { site_id: string; api_key: string };
const PAGE = 'https://blog.example.com/posts/hello?x=1';

beforeAll(async () => {
  // Parley's address is known before it starts: the provider's client is registered with its callback.
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  op = await startOidcProvider({ redirectUri: `${publicUrl}/v1/auth/callback` });
  github = await startGithubServer();
  scripted = await startScriptedIssuer();
  parley = await startParley({ PORT: String(port), PARLEY_PUBLIC_URL: publicUrl });
  site = await parley.newSite();
  other = await parley.newSite();
  for (const s of [site, other]) {
    expect((await parley.request('PATCH', `/api/sites/${s.site_id}`, { token: s.api_key, body: { domains: ['blog.example.com'] } })).status).toBe(200);
  }
});

afterAll(async () => {
  await parley.close();
  await Promise.all([op.close(), github.close(), scripted.close()]);
});

beforeEach(() => {
  scripted.override = {};
});

async function addProvider(body: Record<string, unknown>, s = site) {
  const response = await parley.request('POST', `/api/sites/${s.site_id}/identity-providers`, { token: s.api_key, body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string };
}

const oidcProvider = (extra: Record<string, unknown> = {}) =>
  addProvider({ type: 'oidc', name: 'Test ID', client_id: op.clientId, client_secret: op.clientSecret, issuer: op.issuer, ...extra });

/** GET start as a browser would send it, without following the redirect. */
function start(providerId: string, query: Record<string, string> = {}) {
  const params = new URLSearchParams({ site_id: site.site_id, return_to: PAGE, ...query });
  return fetch(`${parley.url}/v1/auth/providers/${providerId}/start?${params}`, { redirect: 'manual' });
}

async function authorizationUrl(providerId: string, query: Record<string, string> = {}): Promise<string> {
  const response = await start(providerId, query);
  expect(response.status, await response.clone().text()).toBe(302);
  return response.headers.get('location')!;
}

/** The provider sent the reader back to Parley's callback: the browser opens it. */
const callback = (url: URL) => fetch(`${parley.url}${url.pathname}${url.search}`, { redirect: 'manual' });

/** What the pop-up page hands its opener, read from the page. */
function openerMessage(html: string) {
  const data = /<script type="application\/json" id="parley-message">(.*?)<\/script>/.exec(html)?.[1];
  return data ? JSON.parse(data) : null;
}

async function written() {
  const db = parley.app.db.kysely;
  const count = async (table: 'site_users' | 'reader_identities' | 'sessions') =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  return { users: await count('site_users'), identities: await count('reader_identities'), sessions: await count('sessions') };
}

describe('signing in at an OpenID provider', () => {
  it('goes to the provider with PKCE S256, state and nonce, and comes back in a pop-up that posts the session to the page\'s origin only', async () => {
    const provider = await oidcProvider();
    op.accounts.set('ada', { email: 'Ada@Example.com', email_verified: true, name: 'Ada Lovelace' });
    const authorize = new URL(await authorizationUrl(provider.id));
    expect(authorize.origin).toBe(op.issuer);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      client_id: op.clientId,
      response_type: 'code',
      scope: 'openid email profile',
      code_challenge_method: 'S256',
      redirect_uri: `${parley.config.publicUrl}/v1/auth/callback`,
    });
    expect(authorize.searchParams.get('state')).toBeTruthy();
    expect(authorize.searchParams.get('nonce')).toBeTruthy();

    const page = await callback(await op.signIn(authorize.href, 'ada'));
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy')!;
    const html = await page.text();
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)![1];
    expect(html).toContain(`<script nonce="${nonce}">`);
    expect(html).toContain('You are signed in');
    const { message, origin } = openerMessage(html);
    expect(origin).toBe('https://blog.example.com');
    expect(message.type).toBe('parley:session');
    expect(message.session.user).toMatchObject({ name: 'Ada Lovelace' });

    // The session is the reader's: they comment as themselves.
    const posted = await parley.request('POST', '/v1/comments', { token: message.session.token, body: { site_id: site.site_id, thread_url: PAGE, content: 'Signed in at my provider' } });
    expect(posted.status).toBe(201);
    const identity = await parley.app.db.kysely.selectFrom('reader_identities').selectAll().where('provider', '=', provider.id).where('subject', '=', 'ada').executeTakeFirstOrThrow();
    expect(identity).toMatchObject({ email: 'ada@example.com', email_verified: 1 });
  });

  it('redirect mode: 303 to return_to with the session token in the fragment', async () => {
    const provider = await oidcProvider();
    const back = await callback(await op.signIn(await authorizationUrl(provider.id, { mode: 'redirect' }), 'grace'));
    expect(back.status).toBe(303);
    const location = new URL(back.headers.get('location')!);
    expect(`${location.origin}${location.pathname}${location.search}`).toBe(PAGE);
    const token = /^#parley_session=(sess_\w+)$/.exec(location.hash)![1];
    expect((await parley.request('GET', `/v1/widget?site_id=${site.site_id}`, { token })).body.viewer.signed_in).toBe(true);
  });

  it('refuses a replayed callback (the same code and state): the sign-in was taken once', async () => {
    const provider = await oidcProvider();
    const returned = await op.signIn(await authorizationUrl(provider.id), 'linus');
    expect((await callback(returned)).status).toBe(200);
    const before = await written();
    const replay = await callback(returned);
    expect(replay.status).toBe(400);
    const html = await replay.text();
    expect(html).toContain('unknown or was already used');
    expect(openerMessage(html)).toBeNull();
    expect(await written()).toEqual(before);
  });

  it('refuses a tampered state, writing nothing and posting nothing (no page is known to post to)', async () => {
    const provider = await oidcProvider();
    const returned = await op.signIn(await authorizationUrl(provider.id), 'mallory');
    returned.searchParams.set('state', `${returned.searchParams.get('state')}x`);
    const before = await written();
    const page = await callback(returned);
    expect(page.status).toBe(400);
    expect(openerMessage(await page.text())).toBeNull();
    expect(await written()).toEqual(before);
  });

  it('refuses an ID token for another nonce (the authorization request was tampered with) and tells the opener', async () => {
    const provider = await oidcProvider();
    const authorize = new URL(await authorizationUrl(provider.id));
    authorize.searchParams.set('nonce', 'a-nonce-of-someone-else');
    const before = await written();
    const page = await callback(await op.signIn(authorize.href, 'eve'));
    expect(page.status).toBe(401);
    const html = await page.text();
    expect(html).toMatch(/nonce/);
    expect(openerMessage(html)).toMatchObject({ origin: 'https://blog.example.com', message: { type: 'parley:sign-in-error', detail: expect.stringMatching(/nonce/) } });
    expect(await written()).toEqual(before);
  });

  it('refuses the provider\'s refusal (error=access_denied), writing nothing', async () => {
    const provider = await oidcProvider();
    const before = await written();
    const returned = await op.signIn(await authorizationUrl(provider.id), 'ada', { abort: true });
    expect(returned.searchParams.get('error')).toBe('access_denied');
    const page = await callback(returned);
    expect(page.status).toBe(401);
    const { message } = openerMessage(await page.text());
    expect(message).toEqual({ type: 'parley:sign-in-error', detail: expect.stringContaining('did not sign you in (access_denied') });
    expect(await written()).toEqual(before);
  });

  it.each([
    ['another audience', () => ({ aud: 'some-other-client' }), /aud/],
    ['an expired ID token', () => ({ iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 }), /exp/],
    ['another issuer', () => ({ iss: 'https://evil.example.com' }), /iss/],
  ])('refuses %s, writing nothing', async (_what, override, detail) => {
    const provider = await addProvider({ type: 'oidc', name: 'Scripted', client_id: scripted.clientId, client_secret: scripted.clientSecret, issuer: scripted.issuer });
    scripted.override = override();
    const before = await written();
    const page = await callback(await scripted.approve(await authorizationUrl(provider.id), 'someone'));
    expect(page.status).toBe(401);
    expect(openerMessage(await page.text()).message.detail).toMatch(detail);
    expect(await written()).toEqual(before);
  });

  it('signs in through the scripted issuer when its token is right (the refusals above are the checks, not the issuer)', async () => {
    const provider = await addProvider({ type: 'oidc', name: 'Scripted', client_id: scripted.clientId, client_secret: scripted.clientSecret, issuer: scripted.issuer });
    const page = await callback(await scripted.approve(await authorizationUrl(provider.id), 'fine'));
    expect(page.status).toBe(200);
  });

  it('refuses a return_to on another domain, and a provider of another site (404), before leaving for the provider', async () => {
    const provider = await oidcProvider();
    const elsewhere = await start(provider.id, { return_to: 'https://evil.example.net/steal' });
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.json()).toMatchObject({ code: 'validation_failed', errors: [{ path: 'querystring/return_to' }] });
    const otherSite = await start(provider.id, { site_id: other.site_id });
    expect(otherSite.status).toBe(404);
    expect(await otherSite.json()).toMatchObject({ code: 'not_found' });
  });
});

describe('one reader whatever the way in', () => {
  it('a verified address at the provider signs in as the reader who proved it by a code; an unverified one makes a new reader', async () => {
    const s = (await findSite(parley.app.db.kysely, site.site_id))!;
    const byCode = await signInReader(parley.app.db, s, { provider: EMAIL_PROVIDER, subject: 'joan@example.com', email: 'joan@example.com', emailVerified: true, name: 'Joan', pictureUrl: null });
    const provider = await oidcProvider();

    op.accounts.set('joan-verified', { email: 'joan@example.com', email_verified: true });
    const linked = openerMessage(await (await callback(await op.signIn(await authorizationUrl(provider.id), 'joan-verified'))).text());
    expect(linked.message.session.user.id).toBe(byCode.user.id);

    op.accounts.set('joan-unverified', { email: 'joan@example.com', email_verified: false });
    const stranger = openerMessage(await (await callback(await op.signIn(await authorizationUrl(provider.id), 'joan-unverified'))).text());
    expect(stranger.message.session.user.id).not.toBe(byCode.user.id);
  });

  it("never takes Microsoft's email claim as proof", async () => {
    const provider = await addProvider({ type: 'microsoft', name: 'Microsoft', client_id: op.clientId, client_secret: op.clientSecret, issuer: op.issuer });
    op.accounts.set('ms-user', { email: 'ms@example.com', email_verified: true });
    expect((await callback(await op.signIn(await authorizationUrl(provider.id), 'ms-user'))).status).toBe(200);
    const identity = await parley.app.db.kysely.selectFrom('reader_identities').selectAll().where('provider', '=', provider.id).executeTakeFirstOrThrow();
    expect(identity).toMatchObject({ email: 'ms@example.com', email_verified: 0 });
  });
});

describe('signing in with GitHub', () => {
  const octocat = { id: 583231, login: 'octocat', name: 'The Octocat', avatar_url: 'https://avatars.example.com/u/583231', emails: [
    { email: 'old@example.com', primary: false, verified: true },
    { email: 'Octo@Example.com', primary: true, verified: true },
  ] };

  it("asks GitHub with PKCE for read:user and user:email, and signs the reader in as GitHub's numeric id with the primary verified address", async () => {
    const provider = await addProvider({ type: 'github', name: 'GitHub', client_id: github.clientId, client_secret: github.clientSecret, issuer: github.url });
    const authorize = new URL(await authorizationUrl(provider.id));
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${github.url}/login/oauth/authorize`);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({ scope: 'read:user user:email', code_challenge_method: 'S256' });
    const page = await callback(await github.approve(authorize.href, octocat));
    expect(page.status).toBe(200);
    expect(openerMessage(await page.text()).message.session.user.name).toBe('The Octocat');
    const identity = await parley.app.db.kysely.selectFrom('reader_identities').selectAll().where('provider', '=', provider.id).executeTakeFirstOrThrow();
    expect(identity).toMatchObject({ subject: '583231', email: 'octo@example.com', email_verified: 1 });
  });

  it('refuses when GitHub refuses the client secret, writing nothing', async () => {
    const provider = await addProvider({ type: 'github', name: 'GitHub', client_id: github.clientId, client_secret: 'wrong-secret', issuer: github.url });
    const before = await written();
    const page = await callback(await github.approve(await authorizationUrl(provider.id), octocat));
    expect(page.status).toBe(401);
    expect(openerMessage(await page.text()).message.detail).toContain('incorrect_client_credentials');
    expect(await written()).toEqual(before);
  });
});
