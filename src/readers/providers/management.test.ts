import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGithubServer, type TestGithubServer } from '../../../test/github-server.ts';
import { startParley, type TestParley } from '../../../test/helper.ts';
import { freePort, startOidcProvider, type TestOidcProvider } from '../../../test/oidc-provider.ts';
import { findSite } from '../../sites/repository.ts';
import { signInReader } from '../sign-in.ts';

let parley: TestParley;
let op: TestOidcProvider;
let github: TestGithubServer;
let site: { site_id: string; api_key: string };
let other: { site_id: string; api_key: string };

beforeAll(async () => {
  parley = await startParley();
  op = await startOidcProvider({ redirectUri: `${parley.config.publicUrl}/v1/auth/callback` });
  github = await startGithubServer();
  site = await parley.newSite();
  other = await parley.newSite();
});

afterAll(async () => {
  await parley.close();
  await Promise.all([op.close(), github.close()]);
});

const path = (s = site) => `/api/sites/${s.site_id}/identity-providers`;
const add = (body: Record<string, unknown>, s = site) => parley.request('POST', path(s), { token: s.api_key, body });

describe('identity providers of a site', () => {
  it('adds, lists, shows, changes and removes a provider; views carry the callback URL and never the secret', async () => {
    const created = await add({ type: 'oidc', name: 'Company ID', client_id: 'parley', client_secret: 'top-secret-value', issuer: op.issuer });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^idp_/),
      site_id: site.site_id,
      type: 'oidc',
      name: 'Company ID',
      client_id: 'parley',
      issuer: op.issuer,
      callback_url: `${parley.config.publicUrl}/v1/auth/callback`,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const one = `${path()}/${created.body.id}`;
    const listed = (await parley.request('GET', path(), { token: site.api_key })).body;
    expect(listed.providers).toContainEqual(created.body);
    expect(listed.callback_url).toBe(`${parley.config.publicUrl}/v1/auth/callback`);
    expect((await parley.request('GET', one, { token: site.api_key })).body).toEqual(created.body);

    const changed = await parley.request('PATCH', one, { token: site.api_key, body: { name: 'Staff ID', client_secret: 'another-secret' } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ name: 'Staff ID', client_id: 'parley' });
    const stored = await parley.app.db.kysely.selectFrom('identity_providers').select('client_secret').where('id', '=', created.body.id).executeTakeFirstOrThrow();
    expect(stored.client_secret).toBe('another-secret');

    expect((await parley.request('DELETE', one, { token: site.api_key })).status).toBe(200);
    expect((await parley.request('GET', one, { token: site.api_key })).status).toBe(404);

    const audit = await parley.app.db.kysely.selectFrom('audit_log').select(['action', 'data']).where('target_ref', '=', created.body.id).orderBy('created_at').execute();
    expect(audit.map((entry) => entry.action)).toEqual(['identity_provider.created', 'identity_provider.updated', 'identity_provider.deleted']);
    expect(JSON.stringify(audit)).not.toMatch(/secret-value|another-secret/);
  });

  it("fills in the presets' issuers and lets an admin name their own (self-managed GitLab, a Microsoft tenant, GitHub Enterprise)", async () => {
    const issuers = async (body: Record<string, unknown>) => (await add({ name: 'X', client_id: 'c', client_secret: 's', ...body })).body.issuer;
    expect(await issuers({ type: 'google' })).toBe('https://accounts.google.com');
    expect(await issuers({ type: 'gitlab' })).toBe('https://gitlab.com');
    expect(await issuers({ type: 'gitlab', issuer: 'https://gitlab.example.org' })).toBe('https://gitlab.example.org');
    expect(await issuers({ type: 'microsoft' })).toBe('https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0');
    expect(await issuers({ type: 'github' })).toBe('https://github.com');
    expect(await issuers({ type: 'github', issuer: 'https://github.example.org/' })).toBe('https://github.example.org');
  });

  it.each([
    [{ type: 'oidc' }, 'body/issuer', /required/],
    [{ type: 'oidc', issuer: 'http://id.example.com' }, 'body/issuer', /https/],
    [{ type: 'oidc', issuer: 'https://id.example.com/?tenant=1' }, 'body/issuer', /query/],
    [{ type: 'oidc', issuer: 'not a url' }, 'body/issuer', /https URL/],
    [{ type: 'facebook' }, 'body/type', /./],
  ])('refuses %j with a problem naming the field', async (body, field, message) => {
    const response = await add({ name: 'X', client_id: 'c', client_secret: 's', ...body });
    expect(response.status).toBe(400);
    expect(response.body.errors).toContainEqual({ path: field, message: expect.stringMatching(message) });
  });

  it('accepts plain http only on a loopback host', async () => {
    for (const issuer of ['http://127.0.0.1:9999', 'http://localhost:9999/realms/x', 'http://[::1]:9999']) {
      expect((await add({ type: 'oidc', name: 'Local', client_id: 'c', client_secret: 's', issuer })).status).toBe(201);
    }
  });

  it("tests a provider: OpenID discovery says what the issuer offers, or what failed; GitHub's endpoints answer", async () => {
    const test = async (id: string) => (await parley.request('POST', `${path()}/${id}/test`, { token: site.api_key })).body;
    const good = await add({ type: 'oidc', name: 'Test', client_id: op.clientId, client_secret: op.clientSecret, issuer: op.issuer });
    expect(await test(good.body.id)).toEqual({ ok: true, detail: expect.stringContaining(`Issuer ${op.issuer} answered; supports PKCE S256`) });
    const gone = await add({ type: 'oidc', name: 'Gone', client_id: 'c', client_secret: 's', issuer: `http://127.0.0.1:${await freePort()}` });
    expect(await test(gone.body.id)).toEqual({ ok: false, detail: expect.stringMatching(/^Discovery at http:\/\/127\.0\.0\.1:\d+ failed: /) });
    const hub = await add({ type: 'github', name: 'GitHub', client_id: github.clientId, client_secret: github.clientSecret, issuer: github.url });
    expect(await test(hub.body.id)).toEqual({ ok: true, detail: expect.stringContaining('answered') });
    const wrongClient = await add({ type: 'github', name: 'GitHub', client_id: 'unknown-client', client_secret: 's', issuer: github.url });
    expect(await test(wrongClient.body.id)).toEqual({ ok: false, detail: expect.stringContaining('answered 404') });
  });

  it("never has the server fetch an issuer at a private or link-local address (a cloud's metadata service): test and sign-in are refused", async () => {
    await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { domains: ['blog.example.com'] } });
    for (const issuer of ['https://169.254.169.254', 'https://10.0.0.1/realms/staff']) {
      const created = await add({ type: 'oidc', name: 'Inside', client_id: 'parley', client_secret: 'secret', issuer });
      expect(created.status).toBe(201);
      const tested = await parley.request('POST', `${path()}/${created.body.id}/test`, { token: site.api_key });
      expect(tested.status).toBe(409);
      expect(tested.body.detail).toContain('PARLEY_IDENTITY_ALLOW_PRIVATE');
      const query = new URLSearchParams({ site_id: site.site_id, return_to: 'https://blog.example.com/post' });
      const started = await fetch(`${parley.url}/v1/auth/providers/${created.body.id}/start?${query}`, { redirect: 'manual' });
      expect(started.status).toBe(409);
      expect(await parley.app.db.kysely.selectFrom('provider_sign_ins').select('state_hash').where('provider_id', '=', created.body.id).execute()).toEqual([]);
    }
  });

  it("removing a provider removes its readers' identities but keeps the readers", async () => {
    const created = await add({ type: 'google', name: 'Google', client_id: 'c', client_secret: 's' });
    const s = (await findSite(parley.app.db.kysely, site.site_id))!;
    const session = await signInReader(parley.app.db, s, { provider: created.body.id, subject: 'g-1', email: null, emailVerified: false, name: 'Kept', pictureUrl: null });
    expect((await parley.request('DELETE', `${path()}/${created.body.id}`, { token: site.api_key })).status).toBe(200);
    const db = parley.app.db.kysely;
    expect(await db.selectFrom('reader_identities').select('id').where('provider', '=', created.body.id).execute()).toEqual([]);
    expect(await db.selectFrom('site_users').select('name').where('id', '=', session.user.id).executeTakeFirst()).toEqual({ name: 'Kept' });
  });

  it("another site's provider does not exist here (404)", async () => {
    const theirs = await add({ type: 'google', name: 'Google', client_id: 'c', client_secret: 's' }, other);
    expect((await parley.request('GET', `${path()}/${theirs.body.id}`, { token: site.api_key })).status).toBe(404);
    expect((await parley.request('GET', `${path(other)}/${theirs.body.id}`, { token: other.api_key })).status).toBe(200);
    expect((await parley.request('GET', `${path(other)}/${theirs.body.id}`, { token: site.api_key })).status).toBe(404);
  });
});
