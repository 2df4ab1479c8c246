import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type ApiResponse, type TestParley } from '../../test/helper.ts';
import { addStaff, signInStaff, STAFF_PASSWORD, staffEmail } from '../../test/staff.ts';
import { createLink } from './links.ts';

let parley: TestParley;
beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

/** A problem+json answer; `detail` is matched against the detail, or the path of the field at fault. */
function expectProblem(response: ApiResponse, status: number, code: string, detail?: RegExp) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.body).toMatchObject({ status, code });
  if (detail) expect(`${response.body.errors?.[0]?.path ?? ''} ${response.body.detail}`).toMatch(detail);
}

async function ownedAccount() {
  const site = await parley.newSite();
  const owner = await addStaff(parley, site.account_id, 'owner');
  return { site, owner, session: await signInStaff(parley, owner.email) };
}

const invite = (accountId: string, headers: Record<string, string>, body: unknown) => parley.request('POST', `/api/accounts/${accountId}/invites`, { headers, body });

describe('signing in', () => {
  it('refuses a wrong password with 401 and sets no cookie', async () => {
    const { owner } = await ownedAccount();
    const response = await parley.request('POST', '/api/auth/login', { body: { email: owner.email, password: 'not it at all' } });
    expectProblem(response, 401, 'unauthorized', /email or password is wrong/);
    expect(response.headers.get('set-cookie')).toBeNull();
  });

  it('refuses malformed bodies with 400 or 415', async () => {
    expectProblem(await parley.request('POST', '/api/auth/login', { body: { email: 'not an address', password: 'x' } }), 400, 'validation_failed');
    expectProblem(await parley.request('POST', '/api/auth/login', { body: { email: 'a@example.com' } }), 400, 'validation_failed');
    expectProblem(await parley.request('POST', '/api/auth/login', { body: { email: 'a@example.com', password: 'x'.repeat(1001) } }), 400, 'validation_failed');
    expectProblem(await parley.request('POST', '/api/auth/login', { raw: 'email=a', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'unsupported_media_type');
  });

  it('refuses a language Parley does not speak, or none given, keeping the one chosen', async () => {
    const { session } = await ownedAccount();
    await parley.request('PUT', '/api/auth/me/language', { headers: session.headers, body: { language: 'de' } });
    for (const body of [{ language: 'xx' }, { language: 'pt' }, { language: 'DE' }, {}]) {
      expectProblem(await parley.request('PUT', '/api/auth/me/language', { headers: session.headers, body }), 400, 'validation_failed', /language/);
    }
    expect((await parley.request('GET', '/api/auth/me', { headers: session.headers })).body).toMatchObject({ language: 'de' });
  });

  it('answers /api/auth/me 401 without a sign-in and 403 to an API key', async () => {
    const site = await parley.newSite();
    expectProblem(await parley.request('GET', '/api/auth/me'), 401, 'unauthorized');
    expectProblem(await parley.request('GET', '/api/auth/me', { headers: { cookie: 'parley_staff=stfs_unknown' } }), 401, 'unauthorized');
    expectProblem(await parley.request('GET', '/api/auth/me', { token: site.api_key }), 403, 'forbidden');
  });

  it('refuses a wrong current password or a short new one, changing nothing', async () => {
    const { owner, session } = await ownedAccount();
    const change = (body: unknown) => parley.request('POST', '/api/auth/password', { headers: session.headers, body });
    expectProblem(await change({ current_password: 'wrong guess', new_password: 'a long new password' }), 401, 'unauthorized');
    expectProblem(await change({ current_password: STAFF_PASSWORD, new_password: 'short' }), 400, 'validation_failed');
    expectProblem(await change({ current_password: STAFF_PASSWORD, new_password: `ten chars \ud800` }), 400, 'validation_failed');
    await signInStaff(parley, owner.email);
  });

  it('answers 404 for a session of someone else or none', async () => {
    const { session } = await ownedAccount();
    const other = await ownedAccount();
    expectProblem(await parley.request('DELETE', `/api/auth/sessions/${other.session.body.session.id}`, { headers: session.headers }), 404, 'not_found');
    expectProblem(await parley.request('DELETE', '/api/auth/sessions/sts_nothing', { headers: session.headers }), 404, 'not_found');
  });
});

describe('links', () => {
  it('refuse an invite that is unknown, used, revoked or expired with 404', async () => {
    const { site, session } = await ownedAccount();
    const accept = (token: string) => parley.request('POST', '/api/auth/invites/accept', { body: { token, email: staffEmail(), name: 'Ivy', password: STAFF_PASSWORD } });
    expectProblem(await accept('invite_nonsense'), 404, 'not_found', /unknown, used, revoked or expired/);
    const used = await invite(site.account_id, session.headers, { role: 'moderator' });
    expect((await accept(used.body.token)).status).toBe(201);
    expectProblem(await accept(used.body.token), 404, 'not_found');
    const revoked = await invite(site.account_id, session.headers, { role: 'moderator' });
    await parley.request('DELETE', `/api/accounts/${site.account_id}/invites/${revoked.body.id}`, { headers: session.headers });
    expectProblem(await accept(revoked.body.token), 404, 'not_found');
    const expired = await invite(site.account_id, session.headers, { role: 'moderator' });
    await parley.app.db.kysely.updateTable('staff_links').set({ expires_at: '2000-01-01T00:00:00.000Z' }).where('id', '=', expired.body.id).execute();
    expectProblem(await accept(expired.body.token), 404, 'not_found');
    // A reset link is no invite.
    const moderator = await addStaff(parley, site.account_id, 'moderator');
    const reset = await parley.request('POST', `/api/accounts/${site.account_id}/members/${moderator.id}/reset-link`, { headers: session.headers });
    expectProblem(await accept(reset.body.token), 404, 'not_found');
  });

  it('refuse an invite for another address, a known address with a wrong password, a missing name, or a member', async () => {
    const { site, session, owner } = await ownedAccount();
    const bound = await invite(site.account_id, session.headers, { role: 'admin', email: 'invited@example.com' });
    expectProblem(await parley.request('POST', '/api/auth/invites/accept', { body: { token: bound.body.token, email: 'someone@example.com', name: 'S', password: STAFF_PASSWORD } }), 400, 'validation_failed');
    const open = await invite(site.account_id, session.headers, { role: 'admin' });
    expectProblem(await parley.request('POST', '/api/auth/invites/accept', { body: { token: open.body.token, name: 'N', password: STAFF_PASSWORD } }), 400, 'validation_failed', /email/);
    expectProblem(await parley.request('POST', '/api/auth/invites/accept', { body: { token: open.body.token, email: staffEmail(), password: STAFF_PASSWORD } }), 400, 'validation_failed', /name/);
    expectProblem(await parley.request('POST', '/api/auth/invites/accept', { body: { token: open.body.token, email: staffEmail(), name: 'N', password: 'short' } }), 400, 'validation_failed');
    const other = await ownedAccount();
    expectProblem(await parley.request('POST', '/api/auth/invites/accept', { body: { token: open.body.token, email: other.owner.email, password: 'wrong password!' } }), 401, 'unauthorized');
    expectProblem(await parley.request('POST', '/api/auth/invites/accept', { body: { token: open.body.token, email: owner.email, password: STAFF_PASSWORD } }), 409, 'conflict', /already a member/);
    // Nothing above spent the link.
    expect((await parley.request('POST', '/api/auth/invites/accept', { body: { token: open.body.token, email: staffEmail(), name: 'N', password: STAFF_PASSWORD } })).status).toBe(201);
  });

  it('refuse setup once the account has an owner', async () => {
    const { site } = await ownedAccount();
    const { token } = await createLink(parley.app.db.kysely, { kind: 'setup', accountId: site.account_id, createdBy: 'setup', role: 'owner' });
    expectProblem(await parley.request('POST', '/api/auth/setup', { body: { token, email: staffEmail(), name: 'Eve', password: STAFF_PASSWORD } }), 409, 'conflict', /already has an owner/);
  });

  it('refuse a reset with a short password, and an earlier reset link once a new one is issued', async () => {
    const { site, session } = await ownedAccount();
    const moderator = await addStaff(parley, site.account_id, 'moderator');
    const path = `/api/accounts/${site.account_id}/members/${moderator.id}/reset-link`;
    const first = await parley.request('POST', path, { headers: session.headers });
    const second = await parley.request('POST', path, { headers: session.headers });
    expectProblem(await parley.request('POST', '/api/auth/reset', { body: { token: second.body.token, password: 'short' } }), 400, 'validation_failed');
    expectProblem(await parley.request('POST', '/api/auth/reset', { body: { token: first.body.token, password: 'long enough now' } }), 404, 'not_found', /replaced/);
    expect((await parley.request('POST', '/api/auth/reset', { body: { token: second.body.token, password: 'long enough now' } })).status).toBe(200);
  });
});

describe('the team', () => {
  it('keeps the last owner: not demoted, not removed, cannot leave (409)', async () => {
    const { site, session } = await ownedAccount();
    const me = `/api/accounts/${site.account_id}/members/${session.body.staff.id}`;
    expectProblem(await parley.request('PATCH', me, { headers: session.headers, body: { role: 'admin' } }), 409, 'conflict', /last owner/);
    expectProblem(await parley.request('DELETE', me, { headers: session.headers }), 409, 'conflict', /last owner/);
    expectProblem(await parley.request('DELETE', me, { token: site.api_key }), 403, 'forbidden');
    const members = await parley.request('GET', `/api/accounts/${site.account_id}/members`, { headers: session.headers });
    expect(members.body.members).toEqual([expect.objectContaining({ role: 'owner' })]);
  });

  it('refuses site scopes that are not a moderator\'s or not the account\'s sites, and unknown members (400, 404)', async () => {
    const { site, session } = await ownedAccount();
    const moderator = await addStaff(parley, site.account_id, 'moderator');
    const path = `/api/accounts/${site.account_id}/members/${moderator.id}`;
    const stranger = await parley.newSite();
    expectProblem(await parley.request('PATCH', path, { headers: session.headers, body: { role: 'admin', site_ids: [site.site_id] } }), 400, 'validation_failed', /moderators only/);
    expectProblem(await parley.request('PATCH', path, { headers: session.headers, body: { site_ids: [stranger.site_id] } }), 400, 'validation_failed', /sites of this account/);
    expectProblem(await parley.request('PATCH', path, { headers: session.headers, body: { site_ids: [] } }), 400, 'validation_failed');
    expectProblem(await parley.request('PATCH', path, { headers: session.headers, body: { role: 'integration' } }), 400, 'validation_failed');
    expectProblem(await invite(site.account_id, session.headers, { role: 'owner', site_ids: [site.site_id] }), 400, 'validation_failed');
    expectProblem(await parley.request('PATCH', `/api/accounts/${site.account_id}/members/stf_nobody`, { headers: session.headers, body: { role: 'admin' } }), 404, 'not_found');
    expectProblem(await parley.request('DELETE', `/api/accounts/${site.account_id}/invites/inv_nothing`, { headers: session.headers }), 404, 'not_found');
    expectProblem(await parley.request('GET', `/api/accounts/${site.account_id}/audit-log?limit=0`, { headers: session.headers }), 400, 'validation_failed');
  });

  it('asks staff who administer several accounts which one a new site or key is for', async () => {
    const first = await ownedAccount();
    const second = await parley.newSite();
    await addStaff(parley, second.account_id, 'admin', { email: first.owner.email });
    const session = await signInStaff(parley, first.owner.email);
    expectProblem(await parley.request('POST', '/api/sites', { headers: session.headers, body: { name: 'Which?' } }), 400, 'validation_failed', /account_id/);
    expectProblem(await parley.request('POST', '/api/keys', { headers: session.headers, body: { role: 'moderator' } }), 400, 'validation_failed', /account_id/);
    const created = await parley.request('POST', '/api/sites', { headers: session.headers, body: { name: 'There', account_id: second.account_id } });
    expect(created.status).toBe(201);
    const sites = await parley.app.db.kysely.selectFrom('sites').select('account_id').where('id', '=', created.body.id).executeTakeFirstOrThrow();
    expect(sites.account_id).toBe(second.account_id);
    expectProblem(await parley.request('POST', '/api/sites', { headers: session.headers, body: { name: 'Nowhere', account_id: 'acct_other' } }), 404, 'not_found');
  });
});
