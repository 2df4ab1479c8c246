import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLink } from '../../src/staff/links.ts';
import { startParley, type ApiResponse } from '../helper.ts';
import { startReceiver, subscribe, WEBHOOK_TEST_ENV, type Receiver } from '../receiver.ts';
import { addStaff, signInStaff, staffEmail, STAFF_PASSWORD } from '../staff.ts';
import { CALLERS, buildWorld, STAFF_CALLERS, type CallerName, type World } from './world.ts';

/**
 * The contract's permission rules as one table: every endpoint against every kind of caller.
 * 401: no credential where one is needed, or one that is unknown, revoked or expired (never treated
 * as a guest). 403: a credential of the right tenant without the role. 404: another tenant's
 * resource. `none` and `guest` send the same request (no credential): a guest is the public known
 * by its IP. Endpoints only admin keys (or only sessions) may use answer 403 by role before any
 * lookup, so they learn nothing about other tenants' ids either. Staff callers send the cookie and
 * CSRF token of a sign-in: under /v1 the cookie is never read, so there they are the public (`v1`).
 */
type Target = (w: World) => Promise<{ path: string; body?: unknown }>;

const A = (w: World) => w.siteA;
const comment = (w: World) => `/v1/comments/${w.userComment}`;
const team = (w: World) => `/api/accounts/${w.accountA}`;
const newModerator = (w: World) => addStaff(w.parley, w.accountA, 'moderator');

/** A /v1 row: staff callers' cookies are not read there, so each answers as `none` does. */
const v1 = (statuses: number[]) => [...statuses, ...STAFF_CALLERS.map(() => statuses[0])];
/** Team management: owners and admins of the account and its admin key; other roles 403 before any lookup, other accounts 404. */
const teamRow = (ok: number) => [401, 401, 403, 403, 403, 403, 403, ok, 404, 401, 401, ok, ok, 403, 403, 404];
/** Anyone may use it (it proves itself in its body), but a refused credential is 401. */
const signInRow = (ok: number) => [ok, ok, ok, ok, ok, ok, ok, ok, ok, 401, 401, ok, ok, ok, ok, ok];
/** A staff member's own sign-in: the cookie only. */
const staffRow = (ok: number) => [401, 401, 403, 403, 403, 403, 403, 403, 403, 401, 401, ok, ok, ok, ok, ok];

//                       none guest user other otherSite integ mod admin otherAcct revoked expired | owner admin mod siteMod otherAcct (staff)
export const MATRIX: Array<[string, number[], Target]> = [
  ['GET /v1/comments', v1([200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401]),
    async (w) => ({ path: `/v1/comments?site_id=${A(w)}&thread_url=${encodeURIComponent(w.thread)}` })],
  ['GET /v1/comments/:id', v1([200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401]),
    async (w) => ({ path: comment(w) })],
  ['GET /v1/widget', v1([200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401]),
    async (w) => ({ path: `/v1/widget?site_id=${A(w)}` })],
  ['POST /v1/comments', v1([201, 201, 201, 201, 404, 201, 201, 201, 404, 401, 401]),
    async (w) => ({ path: '/v1/comments', body: { site_id: A(w), thread_url: w.thread, content: 'hello' } })],
  ['PATCH /v1/comments/:id', v1([401, 401, 200, 403, 404, 403, 403, 403, 404, 401, 401]),
    async (w) => ({ path: comment(w), body: { content: 'edited' } })],
  ['DELETE /v1/comments/:id', v1([401, 401, 200, 403, 404, 403, 200, 200, 404, 401, 401]),
    async (w) => ({ path: `/v1/comments/${await w.post(w.credential.user, 'to delete')}` })],
  ['POST /v1/comments/:id/vote', v1([401, 401, 200, 200, 404, 200, 200, 200, 404, 401, 401]),
    async (w) => ({ path: `${comment(w)}/vote`, body: { vote_type: 'up' } })],
  ['DELETE /v1/comments/:id/vote', v1([401, 401, 200, 200, 404, 200, 200, 200, 404, 401, 401]),
    async (w) => ({ path: `${comment(w)}/vote` })],
  ['POST /v1/comments/:id/react', v1([401, 401, 200, 200, 404, 200, 200, 200, 404, 401, 401]),
    async (w) => ({ path: `${comment(w)}/react`, body: { reaction_type: 'funny' } })],
  ['POST /v1/comments/:id/flag', v1([200, 200, 200, 200, 404, 200, 200, 200, 404, 401, 401]),
    async (w) => ({ path: `${comment(w)}/flag`, body: { reason: 'spam?' } })],
  ['PATCH /v1/comments/:id/moderate', v1([401, 401, 403, 403, 404, 403, 200, 200, 404, 401, 401]),
    async (w) => ({ path: `${comment(w)}/moderate`, body: { action: 'approve' } })],
  ['POST /v1/sessions', v1([401, 401, 403, 403, 403, 201, 201, 201, 404, 401, 401]),
    async (w) => ({ path: '/v1/sessions', body: { site_id: A(w), user: { id: 'dave', name: 'Dave' } } })],
  ['GET /v1/sites', v1([401, 401, 200, 200, 200, 200, 200, 200, 200, 401, 401]),
    async () => ({ path: '/v1/sites' })],
  ['POST /api/sites', [401, 401, 403, 403, 403, 403, 403, 201, 201, 401, 401, 201, 201, 403, 403, 201],
    async () => ({ path: '/api/sites', body: { name: 'Another site' } })],
  ['GET /api/sites/:id', [401, 401, 403, 403, 403, 403, 403, 200, 404, 401, 401, 200, 200, 403, 403, 404],
    async (w) => ({ path: `/api/sites/${A(w)}` })],
  ['PATCH /api/sites/:id', [401, 401, 403, 403, 403, 403, 403, 200, 404, 401, 401, 200, 200, 403, 403, 404],
    async (w) => ({ path: `/api/sites/${A(w)}`, body: { name: 'Home' } })],
  ['POST /api/keys', [401, 401, 403, 403, 403, 403, 403, 201, 201, 401, 401, 201, 201, 403, 403, 201],
    async () => ({ path: '/api/keys', body: { role: 'integration' } })],
  ['DELETE /api/keys/:id', [401, 401, 403, 403, 403, 403, 403, 200, 404, 401, 401, 200, 200, 403, 403, 404],
    async (w) => {
      const key = await w.parley.request('POST', '/api/keys', { token: w.adminKey, body: { role: 'integration' } });
      return { path: `/api/keys/${key.body.id}` };
    }],
  ['POST /api/sites/:id/bans', [401, 401, 403, 403, 403, 403, 403, 201, 404, 401, 401, 201, 201, 403, 403, 404],
    async (w) => ({ path: `/api/sites/${A(w)}/bans`, body: { user_id: (await w.newUser(`target-${Math.random()}`)).id } })],
  ['GET /api/sites/:id/webhooks/deliveries', [401, 401, 403, 403, 403, 403, 403, 200, 404, 401, 401, 200, 200, 403, 403, 404],
    async (w) => ({ path: `/api/sites/${A(w)}/webhooks/deliveries` })],
  ['POST /api/sites/:id/webhooks/test', [401, 401, 403, 403, 403, 403, 403, 200, 404, 401, 401, 200, 200, 403, 403, 404],
    async (w) => ({ path: `/api/sites/${A(w)}/webhooks/test`, body: {} })],
  ['POST /api/sites/:id/webhooks/deliveries/:deliveryId/redeliver', [401, 401, 403, 403, 403, 403, 403, 200, 404, 401, 401, 200, 200, 403, 403, 404],
    async (w) => {
      const sent = await w.parley.request('POST', `/api/sites/${A(w)}/webhooks/test`, { token: w.adminKey, body: {} });
      return { path: `/api/sites/${A(w)}/webhooks/deliveries/${sent.body.id}/redeliver` };
    }],
  ['POST /api/auth/login', signInRow(200),
    async (w) => ({ path: '/api/auth/login', body: { email: w.ownerStaffEmail, password: STAFF_PASSWORD } })],
  ['GET /api/auth/me', staffRow(200), async () => ({ path: '/api/auth/me' })],
  ['GET /api/auth/sessions', staffRow(200), async () => ({ path: '/api/auth/sessions' })],
  // Another session of the owner's: only the owner may end it; other people do not see it.
  ['DELETE /api/auth/sessions/:id', [401, 401, 403, 403, 403, 403, 403, 403, 403, 401, 401, 200, 404, 404, 404, 404],
    async (w) => ({ path: `/api/auth/sessions/${(await signInStaff(w.parley, w.ownerStaffEmail)).body.session.id}` })],
  ['POST /api/auth/password', staffRow(200),
    async () => ({ path: '/api/auth/password', body: { current_password: STAFF_PASSWORD, new_password: STAFF_PASSWORD } })],
  ['POST /api/auth/invites/accept', signInRow(201),
    async (w) => {
      const invite = await w.parley.request('POST', `${team(w)}/invites`, { token: w.adminKey, body: { role: 'moderator' } });
      return { path: '/api/auth/invites/accept', body: { token: invite.body.token, email: staffEmail('invited'), name: 'Ivy', password: STAFF_PASSWORD } };
    }],
  ['POST /api/auth/setup', signInRow(201),
    async (w) => {
      const fresh = await w.parley.newSite();
      const { token } = await createLink(w.parley.app.db.kysely, { kind: 'setup', accountId: fresh.account_id, createdBy: 'setup', role: 'owner' });
      return { path: '/api/auth/setup', body: { token, email: staffEmail('owner'), name: 'Olive', password: STAFF_PASSWORD } };
    }],
  ['POST /api/auth/reset', signInRow(200),
    async (w) => {
      const link = await w.parley.request('POST', `${team(w)}/members/${(await newModerator(w)).id}/reset-link`, { token: w.adminKey });
      return { path: '/api/auth/reset', body: { token: link.body.token, password: STAFF_PASSWORD } };
    }],
  ['GET /api/accounts/:id/members', teamRow(200), async (w) => ({ path: `${team(w)}/members` })],
  ['PATCH /api/accounts/:id/members/:staffId', teamRow(200),
    async (w) => ({ path: `${team(w)}/members/${(await newModerator(w)).id}`, body: { role: 'admin' } })],
  ['DELETE /api/accounts/:id/members/:staffId', teamRow(200), async (w) => ({ path: `${team(w)}/members/${(await newModerator(w)).id}` })],
  ['POST /api/accounts/:id/members/:staffId/reset-link', teamRow(201),
    async (w) => ({ path: `${team(w)}/members/${(await newModerator(w)).id}/reset-link` })],
  ['GET /api/accounts/:id/invites', teamRow(200), async (w) => ({ path: `${team(w)}/invites` })],
  ['POST /api/accounts/:id/invites', teamRow(201), async (w) => ({ path: `${team(w)}/invites`, body: { role: 'moderator' } })],
  ['DELETE /api/accounts/:id/invites/:inviteId', teamRow(200),
    async (w) => {
      const invite = await w.parley.request('POST', `${team(w)}/invites`, { token: w.adminKey, body: { role: 'moderator' } });
      return { path: `${team(w)}/invites/${invite.body.id}` };
    }],
  ['GET /api/accounts/:id/audit-log', teamRow(200), async (w) => ({ path: `${team(w)}/audit-log` })],
  ['GET /api/sites/:id/sessions', [401, 401, 403, 403, 403, 403, 403, 200, 404, 401, 401, 200, 200, 403, 403, 404],
    async (w) => ({ path: `/api/sites/${A(w)}/sessions` })],
  // A user of their own per cell: ending every session of the site would sign the session callers out.
  ['DELETE /api/sites/:id/sessions', [401, 401, 403, 403, 403, 403, 403, 200, 404, 401, 401, 200, 200, 403, 403, 404],
    async (w) => ({ path: `/api/sites/${A(w)}/sessions?user_id=${(await w.newUser(`leaving-${Math.random()}`)).id}` })],
  ['DELETE /api/sites/:id/sessions/:session_id', [401, 401, 403, 403, 403, 403, 403, 200, 404, 401, 401, 200, 200, 403, 403, 404],
    async (w) => {
      const user = await w.newUser(`signed-out-${Math.random()}`);
      const listed = await w.parley.request('GET', `/api/sites/${A(w)}/sessions?user_id=${user.id}`, { token: w.adminKey });
      return { path: `/api/sites/${A(w)}/sessions/${listed.body.sessions[0].id}` };
    }],
  // Last: they sign the session and staff callers out.
  ['DELETE /v1/sessions/current', v1([401, 401, 204, 204, 204, 403, 403, 403, 403, 401, 401]),
    async () => ({ path: '/v1/sessions/current' })],
  // The sessions were signed out by the row above.
  ['POST /api/auth/logout', [401, 401, 401, 401, 401, 403, 403, 403, 403, 401, 401, 204, 204, 204, 204, 204], async () => ({ path: '/api/auth/logout' })],
];

const CODE_OF: Record<number, string> = { 401: 'unauthorized', 403: 'forbidden', 404: 'not_found' };

/** Extra checks a suite makes on every cell's answer (`sentAt`: when its request was sent, ms). */
export type CellCheck = (response: ApiResponse, endpoint: string, caller: CallerName, status: number, sentAt: number) => void;

/** Cells a suite cannot run as the table states them. */
export type CellSkip = (endpoint: string, caller: CallerName) => boolean;

/**
 * Every row against every caller (but the cells `skip` names), on a fresh world served with `env`;
 * each cell's status, problem body and WWW-Authenticate asserted, then `check`. Returns the world,
 * for checks of the table itself.
 */
export function describeMatrix(title: string, env: Record<string, string>, check?: CellCheck, skip?: CellSkip): () => World {
  let world: World;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    world = await buildWorld(await startParley({ ...env, ...WEBHOOK_TEST_ENV }));
    await subscribe(world.parley, { site_id: world.siteA, api_key: world.adminKey }, receiver.url, ['comment.created']);
  });
  afterAll(async () => {
    await world.parley.close();
    await receiver.close();
  });

  describe(title, () => {
    describe.each(MATRIX)('%s', (endpoint, statuses, target) => {
      const cells = CALLERS.map((caller, i) => [caller, statuses[i]] as [CallerName, number]).filter(([caller]) => !skip?.(endpoint, caller));
      it.each(cells)('as %s answers %i', async (caller, status) => {
        const { path, body } = await target(world);
        const token = world.credential[caller] ?? undefined;
        const sentAt = Date.now();
        const response = await world.parley.request(endpoint.split(' ')[0], path, { token, body, headers: world.staffHeaders[caller] });
        expect(response.status, JSON.stringify(response.body)).toBe(status);
        if (status >= 400) {
          expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
          expect(response.body).toMatchObject({ status, code: CODE_OF[status] });
          if (status === 401) expect(response.headers.get('www-authenticate')).toBe('Bearer');
        }
        if (endpoint === 'GET /v1/widget' && status === 200) {
          expect(response.body.viewer.signed_in).toBe(![...STAFF_CALLERS, 'none', 'guest', 'otherSiteSession', 'otherAccountKey'].includes(caller));
        }
        if (endpoint === 'GET /v1/sites' && status === 200) {
          const sees = response.body.sites.some((site: { id: string }) => site.id === world.siteA);
          expect(sees).toBe(!['otherSiteSession', 'otherAccountKey'].includes(caller));
        }
        check?.(response, endpoint, caller, status, sentAt);
      });
    });
  });
  return () => world;
}
