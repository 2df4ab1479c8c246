import { pageUrl, type TestParley } from '../helper.ts';
import { addStaff, signInStaff } from '../staff.ts';

/** Suites that send many requests from one address and key measure behaviour, not the limiter. */
export const NO_RATE_LIMITS = {
  PARLEY_RATE_LIMIT_KEY_PER_MINUTE: '0',
  PARLEY_RATE_LIMIT_IP_PER_MINUTE: '0',
  PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: '0',
  PARLEY_RATE_LIMIT_SESSION_COMMENTS_PER_HOUR: '0',
};

/** Every kind of caller the contract distinguishes, against one home site (A) and a stranger (B). */
export const CALLERS = [
  'none',
  'guest',
  'user',
  'otherUser',
  'otherSiteSession',
  'integrationKey',
  'moderatorKey',
  'adminKey',
  'otherAccountKey',
  'revokedKey',
  'expiredSession',
  // People signed in with the staff cookie (and sending its CSRF token): owner, admin and moderator
  // of the home account, a moderator of another site of it only, and the owner of the stranger's.
  'ownerStaff',
  'adminStaff',
  'moderatorStaff',
  'siteModeratorStaff',
  'otherAccountStaff',
] as const;
export const STAFF_CALLERS: CallerName[] = ['ownerStaff', 'adminStaff', 'moderatorStaff', 'siteModeratorStaff', 'otherAccountStaff'];
export type CallerName = (typeof CALLERS)[number];

export interface World {
  parley: TestParley;
  siteA: string;
  siteB: string;
  accountA: string;
  accountB: string;
  thread: string;
  /** The credential each caller sends; null = none (the public, or a guest known by IP, or staff). */
  credential: Record<CallerName, string | null>;
  /** The cookie and CSRF token each staff caller sends. */
  staffHeaders: Partial<Record<CallerName, Record<string, string>>>;
  /** The stf_ id of each staff caller. */
  staffIds: string[];
  /** The owner of account A, with the address and password it signs in with. */
  ownerStaffEmail: string;
  /** A published comment of the session user `user` on site A. */
  userComment: string;
  adminKey: string;
  /** A comment on the world's thread (a reply to `parentId` when given): its id. */
  post(token: string | null, content?: string, parentId?: string): Promise<string>;
  /** A new site user of site A (as POST /v1/sessions makes one): their usr_ id and a session token. */
  newUser(name: string): Promise<{ id: string; token: string }>;
  /** The usr_ id of a site user of site A by their own id (e.g. 'alice'). */
  userId(externalId: string): Promise<string>;
}

export async function buildWorld(parley: TestParley): Promise<World> {
  const a = await parley.newSite({ siteName: 'Home', plan: 'publisher' });
  const b = await parley.newSite({ siteName: 'Stranger', plan: 'publisher' });
  // Cells edit a comment as old as the run, which may outlast an edit window (edit-window.error.test.ts checks the window).
  await parley.request('PATCH', `/api/sites/${a.site_id}`, { token: a.api_key, body: { edit_window_seconds: null } });
  const key = async (role: string) => {
    const response = await parley.request('POST', '/api/keys', { token: a.api_key, body: { role, name: `${role} key` } });
    if (response.status !== 201) throw new Error(`key: ${response.status}`);
    return response.body as { id: string; api_key: string };
  };
  const [integration, moderator, revoked] = [await key('integration'), await key('moderator'), await key('admin')];
  await parley.request('DELETE', `/api/keys/${revoked.id}`, { token: a.api_key });
  const newUser = async (name: string) => {
    const response = await parley.request('POST', '/v1/sessions', { token: a.api_key, body: { site_id: a.site_id, user: { id: name, name } } });
    return { id: response.body.user.id as string, token: response.body.token as string };
  };
  const expired = await newUser('alice');
  // No API shortens a session; the fixture moves its expiry into the past instead.
  await parley.app.db.kysely.updateTable('sessions').set({ expires_at: '2000-01-01T00:00:00.000Z' }).where('user_id', '=', expired.id).execute();
  const user = await newUser('alice');
  const otherUser = await newUser('bob');
  const otherSiteSession = await parley.signIn(b.api_key, b.site_id, { id: 'carol', name: 'Carol' });
  const elsewhere = await parley.request('POST', '/api/sites', { token: a.api_key, body: { name: 'Elsewhere' } });
  const staff = {
    ownerStaff: await addStaff(parley, a.account_id, 'owner'),
    adminStaff: await addStaff(parley, a.account_id, 'admin'),
    moderatorStaff: await addStaff(parley, a.account_id, 'moderator'),
    siteModeratorStaff: await addStaff(parley, a.account_id, 'moderator', { siteIds: [elsewhere.body.id] }),
    otherAccountStaff: await addStaff(parley, b.account_id, 'owner'),
  };
  const staffHeaders: World['staffHeaders'] = {};
  for (const [caller, { email }] of Object.entries(staff)) staffHeaders[caller as CallerName] = (await signInStaff(parley, email)).headers;
  const thread = pageUrl();
  const post = async (token: string | null, content = 'a comment', parentId?: string) => {
    const body = { site_id: a.site_id, thread_url: thread, content, ...(parentId && { parent_id: parentId }) };
    const response = await parley.request('POST', '/v1/comments', { token: token ?? undefined, body });
    if (response.status !== 201) throw new Error(`post: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body.id as string;
  };
  return {
    parley,
    siteA: a.site_id,
    siteB: b.site_id,
    accountA: a.account_id,
    accountB: b.account_id,
    thread,
    credential: {
      none: null,
      guest: null,
      user: user.token,
      otherUser: otherUser.token,
      otherSiteSession,
      integrationKey: integration.api_key,
      moderatorKey: moderator.api_key,
      adminKey: a.api_key,
      otherAccountKey: b.api_key,
      revokedKey: revoked.api_key,
      expiredSession: expired.token,
      ownerStaff: null,
      adminStaff: null,
      moderatorStaff: null,
      siteModeratorStaff: null,
      otherAccountStaff: null,
    },
    staffHeaders,
    staffIds: Object.values(staff).map(({ id }) => id),
    ownerStaffEmail: staff.ownerStaff.email,
    userComment: await post(user.token, 'written by alice'),
    adminKey: a.api_key,
    post,
    newUser,
    userId: async (externalId) =>
      (await parley.app.db.kysely.selectFrom('site_users').select('id').where('site_id', '=', a.site_id).where('external_id', '=', externalId).executeTakeFirstOrThrow()).id,
  };
}
