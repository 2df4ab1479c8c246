import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { addStaff, signedIn, signInStaff, STAFF_PASSWORD, staffEmail } from '../../test/staff.ts';
import { moderateComment } from '../moderation/service.ts';
import { createLink } from './links.ts';
import { staffCallerOfToken } from './sessions.ts';

let parley: TestParley;
beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

/** A site's account with its owner signed in. */
async function ownedAccount() {
  const site = await parley.newSite();
  const owner = await addStaff(parley, site.account_id, 'owner', { name: 'Olive' });
  return { site, owner, session: await signInStaff(parley, owner.email) };
}

describe('signing in', () => {
  it('sets an httpOnly SameSite=Lax cookie for /api/ and answers with the person, their accounts and a CSRF token', async () => {
    const { site, owner } = await ownedAccount();
    const response = await parley.request('POST', '/api/auth/login', { body: { email: owner.email.toUpperCase(), password: STAFF_PASSWORD } });
    expect(response.status).toBe(200);
    expect(response.headers.getSetCookie()[0]).toMatch(/^parley_staff=stfs_[0-9A-Za-z]{43}; Max-Age=1209600; Path=\/api\/; HttpOnly; SameSite=Lax$/);
    expect(response.body).toEqual({
      staff: { id: expect.stringMatching(/^stf_/), email: owner.email, email_verified: true, name: 'Olive' },
      language: null,
      memberships: [{ account_id: site.account_id, account_name: 'Test site', role: 'owner', site_ids: null }],
      csrf_token: expect.any(String),
      session: { id: expect.stringMatching(/^sts_/), created_at: expect.any(String), expires_at: expect.any(String) },
    });
    const me = await parley.request('GET', '/api/auth/me', { headers: { cookie: signedIn(response).cookie } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ staff: response.body.staff, session: response.body.session, memberships: response.body.memberships });
  });

  it('answers "nobody" without an error when asked if_signed_in, and 401 as before when not', async () => {
    const { session } = await ownedAccount();
    const nobody = await parley.request('GET', '/api/auth/me?if_signed_in=true');
    expect(nobody.status).toBe(204);
    expect((await parley.request('GET', '/api/auth/me')).status).toBe(401);
    const stale = await parley.request('GET', '/api/auth/me?if_signed_in=true', { headers: { cookie: 'parley_staff=stfs_ended' } });
    expect(stale.status).toBe(204);
    const someone = await parley.request('GET', '/api/auth/me?if_signed_in=true', { headers: session.headers });
    expect(someone.status).toBe(200);
    expect(someone.body.staff.email).toBe(session.body.staff.email);
    expect((await parley.request('GET', '/api/auth/me?if_signed_in=true', { token: (await parley.newSite()).api_key })).status).toBe(403);
  });

  it("keeps the language a person chooses for their dashboard, and forgets it for their browser's", async () => {
    const { session } = await ownedAccount();
    const choose = (language: string | null) => parley.request('PUT', '/api/auth/me/language', { headers: session.headers, body: { language } });
    expect((await choose('pt-BR')).body).toEqual({ language: 'pt-BR' });
    expect((await parley.request('GET', '/api/auth/me', { headers: session.headers })).body).toMatchObject({ language: 'pt-BR' });
    expect((await choose(null)).body).toEqual({ language: null });
    expect((await parley.request('GET', '/api/auth/me', { headers: session.headers })).body).toMatchObject({ language: null });
  });

  it('lists the sessions, ends one, and signs out', async () => {
    const { owner, session } = await ownedAccount();
    const other = await signInStaff(parley, owner.email, STAFF_PASSWORD, { 'user-agent': 'phone' });
    const listed = await parley.request('GET', '/api/auth/sessions', { headers: session.headers });
    expect(listed.status).toBe(200);
    expect(listed.body.sessions).toEqual([
      expect.objectContaining({ id: other.body.session.id, user_agent: 'phone', current: false, revoked_at: null, ip: '127.0.0.1' }),
      expect.objectContaining({ id: session.body.session.id, current: true }),
    ]);
    const ended = await parley.request('DELETE', `/api/auth/sessions/${other.body.session.id}`, { headers: session.headers });
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ id: other.body.session.id, revoked_at: expect.any(String), current: false });
    expect((await parley.request('GET', '/api/auth/me', { headers: other.headers })).status).toBe(401);
    const out = await parley.request('POST', '/api/auth/logout', { headers: session.headers });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^parley_staff=; Max-Age=0; Path=\/api\/;/);
    expect((await parley.request('GET', '/api/auth/me', { headers: session.headers })).status).toBe(401);
  });

  it('changes the password, ending the other sessions and keeping this one', async () => {
    const { owner, session } = await ownedAccount();
    const other = await signInStaff(parley, owner.email);
    const changed = await parley.request('POST', '/api/auth/password', {
      headers: session.headers,
      body: { current_password: STAFF_PASSWORD, new_password: 'a brand new passphrase' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ ended_sessions: 1 });
    expect((await parley.request('GET', '/api/auth/me', { headers: other.headers })).status).toBe(401);
    expect((await parley.request('GET', '/api/auth/me', { headers: session.headers })).status).toBe(200);
    await signInStaff(parley, owner.email, 'a brand new passphrase');
  });
});

describe('the team', () => {
  it('invites with a link shown once; a new person accepts it and signs in with the role', async () => {
    const { site, session } = await ownedAccount();
    const other = await parley.request('POST', '/api/sites', { headers: session.headers, body: { name: 'Second' } });
    const invited = await parley.request('POST', `/api/accounts/${site.account_id}/invites`, {
      headers: session.headers,
      body: { role: 'moderator', site_ids: [other.body.id] },
    });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ id: expect.stringMatching(/^inv_/), role: 'moderator', site_ids: [other.body.id], state: 'pending', created_by: session.body.staff.id });
    expect(invited.body.url).toBe(`${parley.url}/dashboard/accept-invite#token=${invited.body.token}`);
    const listed = await parley.request('GET', `/api/accounts/${site.account_id}/invites`, { headers: session.headers });
    expect(listed.body.invites).toEqual([expect.objectContaining({ id: invited.body.id, state: 'pending' })]);
    expect(JSON.stringify(listed.body)).not.toContain(invited.body.token);

    const email = staffEmail('mod');
    const accepted = await parley.request('POST', '/api/auth/invites/accept', { body: { token: invited.body.token, email, name: 'Mo', password: 'moderating all day' } });
    expect(accepted.status).toBe(201);
    expect(accepted.body).toEqual({
      staff: { id: expect.stringMatching(/^stf_/), email, email_verified: false, name: 'Mo' },
      membership: { account_id: site.account_id, role: 'moderator', site_ids: [other.body.id] },
    });
    const mo = await signInStaff(parley, email, 'moderating all day');
    expect(mo.body.memberships).toEqual([{ account_id: site.account_id, account_name: 'Test site', role: 'moderator', site_ids: [other.body.id] }]);
    const afterwards = await parley.request('GET', `/api/accounts/${site.account_id}/invites`, { headers: session.headers });
    expect(afterwards.body.invites[0]).toMatchObject({ state: 'used', used_by: accepted.body.staff.id });
  });

  it('lets a person of another account join with their own password', async () => {
    const first = await ownedAccount();
    const second = await ownedAccount();
    const invited = await parley.request('POST', `/api/accounts/${second.site.account_id}/invites`, { headers: second.session.headers, body: { role: 'admin', email: first.owner.email } });
    const accepted = await parley.request('POST', '/api/auth/invites/accept', { body: { token: invited.body.token, password: STAFF_PASSWORD } });
    expect(accepted.status).toBe(201);
    expect(accepted.body.staff.id).toBe(first.session.body.staff.id);
    const me = await parley.request('GET', '/api/auth/me', { headers: first.session.headers });
    expect(me.body.memberships.map((m: { account_id: string; role: string }) => [m.account_id, m.role])).toEqual([
      [first.site.account_id, 'owner'],
      [second.site.account_id, 'admin'],
    ]);
  });

  it('lists members, changes a role, removes a member, and lets a member leave', async () => {
    const { site, session } = await ownedAccount();
    const admin = await addStaff(parley, site.account_id, 'admin', { name: 'Ada' });
    const moderator = await addStaff(parley, site.account_id, 'moderator', { name: 'Mo' });
    const members = await parley.request('GET', `/api/accounts/${site.account_id}/members`, { headers: session.headers });
    expect(members.body.members.map((m: { name: string; role: string }) => [m.name, m.role])).toEqual([['Olive', 'owner'], ['Ada', 'admin'], ['Mo', 'moderator']]);

    const promoted = await parley.request('PATCH', `/api/accounts/${site.account_id}/members/${moderator.id}`, { headers: session.headers, body: { role: 'owner' } });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({ id: moderator.id, role: 'owner', site_ids: null });
    const removed = await parley.request('DELETE', `/api/accounts/${site.account_id}/members/${admin.id}`, { headers: session.headers });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ id: admin.id, role: 'admin' });
    // With a second owner, the first may leave.
    const left = await parley.request('DELETE', `/api/accounts/${site.account_id}/members/${session.body.staff.id}`, { headers: session.headers });
    expect(left.status).toBe(200);
    const after = await parley.request('GET', `/api/accounts/${site.account_id}/members`, { token: site.api_key });
    expect(after.body.members.map((m: { id: string }) => m.id)).toEqual([moderator.id]);
  });

  it('issues a single-use reset link that sets a new password and ends every session', async () => {
    const { site, session } = await ownedAccount();
    const moderator = await addStaff(parley, site.account_id, 'moderator');
    const signedInModerator = await signInStaff(parley, moderator.email);
    const link = await parley.request('POST', `/api/accounts/${site.account_id}/members/${moderator.id}/reset-link`, { headers: session.headers });
    expect(link.status).toBe(201);
    expect(link.body).toMatchObject({ id: expect.stringMatching(/^rst_/), staff_id: moderator.id, url: `${parley.url}/dashboard/reset-password#token=${link.body.token}` });
    const reset = await parley.request('POST', '/api/auth/reset', { body: { token: link.body.token, password: 'a fresh start here' } });
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ staff: { id: moderator.id }, ended_sessions: 1 });
    expect((await parley.request('GET', '/api/auth/me', { headers: signedInModerator.headers })).status).toBe(401);
    await signInStaff(parley, moderator.email, 'a fresh start here');
    expect((await parley.request('POST', '/api/auth/reset', { body: { token: link.body.token, password: 'once more please' } })).status).toBe(404);
  });

  it('is managed with an admin key of the account as well', async () => {
    const site = await parley.newSite();
    const invited = await parley.request('POST', `/api/accounts/${site.account_id}/invites`, { token: site.api_key, body: { role: 'admin' } });
    expect(invited.status).toBe(201);
    expect(invited.body.created_by).toMatch(/^key_/);
    const accepted = await parley.request('POST', '/api/auth/invites/accept', { body: { token: invited.body.token, email: staffEmail('admin'), name: 'Ada', password: STAFF_PASSWORD } });
    const staffId = accepted.body.staff.id;
    expect((await parley.request('PATCH', `/api/accounts/${site.account_id}/members/${staffId}`, { token: site.api_key, body: { role: 'moderator' } })).body.role).toBe('moderator');
    expect((await parley.request('POST', `/api/accounts/${site.account_id}/members/${staffId}/reset-link`, { token: site.api_key })).status).toBe(201);
    expect((await parley.request('DELETE', `/api/accounts/${site.account_id}/invites/${invited.body.id}`, { token: site.api_key })).body.state).toBe('used');
    expect((await parley.request('DELETE', `/api/accounts/${site.account_id}/members/${staffId}`, { token: site.api_key })).status).toBe(200);
  });

  it('records who made each change, a person or a key', async () => {
    const { site, session } = await ownedAccount();
    const invited = await parley.request('POST', `/api/accounts/${site.account_id}/invites`, { headers: session.headers, body: { role: 'moderator' } });
    await parley.request('DELETE', `/api/accounts/${site.account_id}/invites/${invited.body.id}`, { token: site.api_key });
    const log = await parley.request('GET', `/api/accounts/${site.account_id}/audit-log?limit=2`, { headers: session.headers });
    expect(log.status).toBe(200);
    // Two more came before: the first run's site and key, made by the CLI.
    expect(log.body).toMatchObject({ total: 4, page: 1 });
    expect(log.body.entries).toEqual([
      expect.objectContaining({ action: 'invite.revoked', actor: { id: expect.stringMatching(/^key_/), name: 'bootstrap admin key' }, target: invited.body.id }),
      expect.objectContaining({ action: 'member.invited', actor: { id: session.body.staff.id, name: 'Olive' }, target: invited.body.id, data: { role: 'moderator', site_ids: null, email: null } }),
    ]);
  });
});

describe('staff at work', () => {
  it('owners and admins manage sites, keys, webhooks and bans as admin keys do', async () => {
    const { site, session } = await ownedAccount();
    const admin = await signInStaff(parley, (await addStaff(parley, site.account_id, 'admin')).email);
    for (const staff of [session, admin]) {
      expect((await parley.request('GET', `/api/sites/${site.site_id}`, { headers: staff.headers })).status).toBe(200);
      expect((await parley.request('PATCH', `/api/sites/${site.site_id}`, { headers: staff.headers, body: { moderation_mode: 'guests' } })).body.moderation_mode).toBe('guests');
      const key = await parley.request('POST', '/api/keys', { headers: staff.headers, body: { role: 'integration' } });
      expect(key.status).toBe(201);
      expect((await parley.request('DELETE', `/api/keys/${key.body.id}`, { headers: staff.headers })).status).toBe(200);
      expect((await parley.request('GET', `/api/sites/${site.site_id}/webhooks/deliveries`, { headers: staff.headers })).status).toBe(200);
    }
    const user = await parley.request('POST', '/v1/sessions', { token: site.api_key, body: { site_id: site.site_id, user: { id: 'troll', name: 'Troll' } } });
    const ban = await parley.request('POST', `/api/sites/${site.site_id}/bans`, { headers: admin.headers, body: { user_id: user.body.user.id } });
    expect(ban.status).toBe(201);
    const row = await parley.app.db.kysely.selectFrom('bans').select('created_by').where('id', '=', ban.body.id).executeTakeFirstOrThrow();
    expect(row.created_by).toBe(admin.body.staff.id);
  });

  it('a moderation by a person is logged and sent as moderation.action with their id and display name', async () => {
    const { site } = await ownedAccount();
    const moderator = await addStaff(parley, site.account_id, 'moderator', { name: 'Morgan' });
    const session = await signInStaff(parley, moderator.email);
    const posted = await parley.request('POST', '/v1/comments', { token: site.api_key, body: { site_id: site.site_id, thread_url: pageUrl(), content: 'hello' } });
    // The management API's moderation endpoints call this with the signed-in person.
    const signedInAs = (await staffCallerOfToken(parley.app.db.kysely, session.cookie.split('=')[1], '127.0.0.1'))!.caller;
    await moderateComment(parley.app.db, signedInAs, posted.body.id, 'remove', 'off-topic');
    const db = parley.app.db.kysely;
    const log = await db.selectFrom('moderation_log').select('moderator_ref').where('comment_id', '=', posted.body.id).executeTakeFirstOrThrow();
    expect(log.moderator_ref).toBe(moderator.id);
    const event = await db.selectFrom('events').select('data').where('site_id', '=', site.site_id).where('type', '=', 'moderation.action').executeTakeFirstOrThrow();
    expect(JSON.parse(event.data)).toMatchObject({ action: 'remove', reason: 'off-topic', moderator: { id: moderator.id, name: 'Morgan' } });
  });
});

describe('the first run', () => {
  it('the setup link makes the first owner of its account, once', async () => {
    const site = await parley.newSite();
    const { token } = await createLink(parley.app.db.kysely, { kind: 'setup', accountId: site.account_id, createdBy: 'setup', role: 'owner' });
    const email = staffEmail('owner');
    const setup = await parley.request('POST', '/api/auth/setup', { body: { token, email, name: 'Olive', password: STAFF_PASSWORD } });
    expect(setup.status).toBe(201);
    expect(setup.body).toMatchObject({ staff: { email, name: 'Olive' }, membership: { account_id: site.account_id, role: 'owner', site_ids: null } });
    await signInStaff(parley, email);
    expect((await parley.request('POST', '/api/auth/setup', { body: { token, email: staffEmail(), name: 'Eve', password: STAFF_PASSWORD } })).status).toBe(404);
  });
});
