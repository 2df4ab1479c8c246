import type { ApiResponse, TestParley } from '../helper.ts';
import { SseClient } from '../sse-client.ts';
import { addStaff, signInStaff, staffEmail, STAFF_PASSWORD } from '../staff.ts';

/**
 * The permission matrix's lifecycle cases for staff: a link or a stream granted while its issuer
 * (or its holder, or its target) stood one way, used after that changed. Each case builds an
 * account of its own, so the cases run in any order on one server.
 */
type Credential = { headers: Record<string, string> } | { token: string };

interface Team {
  parley: TestParley;
  accountId: string;
  path: string;
  siteId: string;
  key: Credential;
  owner: Credential;
  admin: Credential & { id: string };
  moderator: { id: string; email: string };
}

export async function teamOf(parley: TestParley): Promise<Team> {
  const site = await parley.newSite();
  const person = async (role: 'owner' | 'admin') => {
    const { id, email } = await addStaff(parley, site.account_id, role);
    return { id, headers: (await signInStaff(parley, email)).headers };
  };
  return {
    parley,
    accountId: site.account_id,
    path: `/api/accounts/${site.account_id}`,
    siteId: site.site_id,
    key: { token: site.api_key },
    owner: await person('owner'),
    admin: await person('admin'),
    moderator: await addStaff(parley, site.account_id, 'moderator'),
  };
}

async function made(response: Promise<ApiResponse>): Promise<any> {
  const answer = await response;
  if (answer.status >= 300) throw new Error(`${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

const resetLink = async (t: Team, by: Credential, staffId: string) => (await made(t.parley.request('POST', `${t.path}/members/${staffId}/reset-link`, by))).token as string;
const spendReset = (t: Team, token: string) => t.parley.request('POST', '/api/auth/reset', { body: { token, password: STAFF_PASSWORD } });
const invite = async (t: Team, by: Credential, role: string) => (await made(t.parley.request('POST', `${t.path}/invites`, { ...by, body: { role } }))).token as string;
const accept = (t: Team, token: string) => t.parley.request('POST', '/api/auth/invites/accept', { body: { token, email: staffEmail('invited'), name: 'Ivy', password: STAFF_PASSWORD } });
const change = (t: Team, staffId: string, role: string) => made(t.parley.request('PATCH', `${t.path}/members/${staffId}`, { ...t.owner, body: { role } }));
const remove = (t: Team, staffId: string, by: Credential = t.owner) => made(t.parley.request('DELETE', `${t.path}/members/${staffId}`, by));
const revokeKey = async (t: Team, key: Credential & { id: string }) => made(t.parley.request('DELETE', `/api/keys/${key.id}`, t.key));
const adminKey = async (t: Team) => {
  const key = await made(t.parley.request('POST', '/api/keys', { ...t.key, body: { role: 'admin', name: 'second admin key' } }));
  return { token: key.api_key as string, id: key.id as string };
};

/** Makes the moderator owner of another account through that account's owner invite, accepted with their own password. */
async function ownsAnotherAccount(t: Team): Promise<void> {
  const other = await teamOf(t.parley);
  const token = await invite(other, other.owner, 'owner');
  await made(t.parley.request('POST', '/api/auth/invites/accept', { body: { token, email: t.moderator.email, password: STAFF_PASSWORD } }));
}

//  [what happened between issuing and using, the answer to using it, the case]
export const LINK_LIFECYCLE: Array<[string, number, (t: Team) => Promise<ApiResponse>]> = [
  ["an admin's reset link for a moderator, spent after the moderator was made owner", 404, async (t) => {
    const token = await resetLink(t, t.admin, t.moderator.id);
    await change(t, t.moderator.id, 'owner');
    return spendReset(t, token);
  }],
  ["an admin's reset link for a moderator, spent after the moderator became owner of another account", 404, async (t) => {
    const token = await resetLink(t, t.admin, t.moderator.id);
    await ownsAnotherAccount(t);
    return spendReset(t, token);
  }],
  // Written straight into the database, as a restore would: no revocation ran, the check at spending holds alone.
  ["an admin's reset link for a moderator, spent after the moderator came to own another account unseen by the team API", 403, async (t) => {
    const token = await resetLink(t, t.admin, t.moderator.id);
    await addStaff(t.parley, (await t.parley.newSite()).account_id, 'owner', { email: t.moderator.email });
    return spendReset(t, token);
  }],
  ["an admin's reset link, spent after the admin was demoted to moderator", 404, async (t) => {
    const token = await resetLink(t, t.admin, t.moderator.id);
    await change(t, t.admin.id, 'moderator');
    return spendReset(t, token);
  }],
  ["an admin's reset link, spent after the admin was removed", 404, async (t) => {
    const token = await resetLink(t, t.admin, t.moderator.id);
    await remove(t, t.admin.id);
    return spendReset(t, token);
  }],
  ["an admin key's reset link, spent after the key was revoked", 403, async (t) => {
    const key = await adminKey(t);
    const token = await resetLink(t, key, t.moderator.id);
    await revokeKey(t, key);
    return spendReset(t, token);
  }],
  ["an admin's reset link, spent after another member changed", 200, async (t) => {
    const token = await resetLink(t, t.admin, t.moderator.id);
    await change(t, (await addStaff(t.parley, t.accountId, 'moderator')).id, 'admin');
    return spendReset(t, token);
  }],
  ["an admin's invite, accepted after the admin was removed", 404, async (t) => {
    const token = await invite(t, t.admin, 'admin');
    await remove(t, t.admin.id);
    return accept(t, token);
  }],
  ["an admin's invite, accepted after the admin left", 404, async (t) => {
    const token = await invite(t, t.admin, 'moderator');
    await remove(t, t.admin.id, t.admin);
    return accept(t, token);
  }],
  ["an admin's invite, accepted after the admin was demoted to moderator", 404, async (t) => {
    const token = await invite(t, t.admin, 'moderator');
    await change(t, t.admin.id, 'moderator');
    return accept(t, token);
  }],
  ["an owner's invite of an owner, accepted after the owner was demoted to admin", 404, async (t) => {
    const second = await addStaff(t.parley, t.accountId, 'owner');
    const token = await invite(t, { headers: (await signInStaff(t.parley, second.email)).headers }, 'owner');
    await change(t, second.id, 'admin');
    return accept(t, token);
  }],
  ["an admin key's invite, accepted after the key was revoked", 403, async (t) => {
    const key = await adminKey(t);
    const token = await invite(t, key, 'admin');
    await revokeKey(t, key);
    return accept(t, token);
  }],
  ["an admin's invite, accepted after the admin was made owner", 201, async (t) => {
    const token = await invite(t, t.admin, 'moderator');
    await change(t, t.admin.id, 'owner');
    return accept(t, token);
  }],
];

/** A staff queue stream of the team's site, open and past `ready`. */
async function queueStream(t: Team, credential: Credential): Promise<SseClient> {
  const headers = 'token' in credential ? { authorization: `Bearer ${credential.token}` } : credential.headers;
  const stream = await SseClient.open(`${t.parley.url}/api/comments/stream?site_id=${t.siteId}`, headers);
  if (stream.status !== 200) throw new Error(`stream: ${stream.status}`);
  await stream.until((s) => s.of('ready').length === 1);
  return stream;
}

async function moderatorSignedIn(t: Team, siteIds?: string[]) {
  const { id, email } = await addStaff(t.parley, t.accountId, 'moderator', { siteIds });
  return { id, headers: (await signInStaff(t.parley, email)).headers };
}

//  [what happened while the stream was open, whether the stream ends, the case: opens it and makes the change]
export const STREAM_LIFECYCLE: Array<[string, boolean, (t: Team) => Promise<SseClient>]> = [
  ["a moderator's queue stream, after the moderator was removed", true, async (t) => {
    const moderator = await moderatorSignedIn(t);
    const stream = await queueStream(t, moderator);
    await remove(t, moderator.id);
    return stream;
  }],
  ["a moderator's queue stream, after the moderator's sites stopped including the site", true, async (t) => {
    const moderator = await moderatorSignedIn(t, [t.siteId]);
    const stream = await queueStream(t, moderator);
    const other = await made(t.parley.request('POST', '/api/sites', { ...t.owner, body: { name: 'Other' } }));
    await made(t.parley.request('PATCH', `${t.path}/members/${moderator.id}`, { ...t.owner, body: { site_ids: [other.id] } }));
    return stream;
  }],
  ["a moderator's queue stream, after the moderator signed out", true, async (t) => {
    const moderator = await moderatorSignedIn(t);
    const stream = await queueStream(t, moderator);
    await made(t.parley.request('POST', '/api/auth/logout', moderator));
    return stream;
  }],
  ["an admin key's queue stream, after the key was revoked", true, async (t) => {
    const key = await adminKey(t);
    const stream = await queueStream(t, key);
    await revokeKey(t, key);
    return stream;
  }],
  ["a moderator's queue stream, after another member was removed", false, async (t) => {
    const stream = await queueStream(t, await moderatorSignedIn(t));
    await remove(t, (await moderatorSignedIn(t)).id);
    return stream;
  }],
];
