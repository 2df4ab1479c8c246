import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type ApiResponse } from '../helper.ts';
import { startReceiver, subscribe, WEBHOOK_TEST_ENV, type Receiver } from '../receiver.ts';
import { CALLERS, buildWorld, type CallerName, type World } from './world.ts';

/**
 * The contract's permission rules as one table: every endpoint against every kind of caller.
 * 401: no credential where one is needed, or one that is unknown, revoked or expired (never treated
 * as a guest). 403: a credential of the right tenant without the role. 404: another tenant's
 * resource. `none` and `guest` send the same request (no credential): a guest is the public known
 * by its IP. Endpoints only admin keys (or only sessions) may use answer 403 by role before any
 * lookup, so they learn nothing about other tenants' ids either.
 */
type Target = (w: World) => Promise<{ path: string; body?: unknown }>;

const A = (w: World) => w.siteA;
const comment = (w: World) => `/v1/comments/${w.userComment}`;

/** A site holds three SSO secrets at most: each cell that makes one first deletes the others. */
async function roomForSecret(w: World): Promise<void> {
  for (const { id } of (await w.parley.request('GET', `/api/sites/${A(w)}/sso-secrets`, { token: w.adminKey })).body.secrets) {
    await w.parley.request('DELETE', `/api/sites/${A(w)}/sso-secrets/${id}`, { token: w.adminKey });
  }
}

//                       none guest user other otherSite integ mod admin otherAcct revoked expired
export const MATRIX: Array<[string, number[], Target]> = [
  ['GET /v1/comments', [200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401],
    async (w) => ({ path: `/v1/comments?site_id=${A(w)}&thread_url=${encodeURIComponent(w.thread)}` })],
  ['GET /v1/comments/:id', [200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401],
    async (w) => ({ path: comment(w) })],
  ['GET /v1/comments/stream', [200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401],
    async (w) => ({ path: `/v1/comments/stream?site_id=${A(w)}&thread_url=${encodeURIComponent(w.thread)}` })],
  ['POST /v1/sso/exchange', [401, 401, 401, 401, 401, 401, 401, 401, 401, 401, 401],
    async () => ({ path: '/v1/sso/exchange', body: { token: 'not.a.token' } })],
  ['POST /api/sites/:id/sso-secrets', [401, 401, 403, 403, 403, 403, 403, 201, 404, 401, 401],
    async (w) => {
      await roomForSecret(w);
      return { path: `/api/sites/${A(w)}/sso-secrets` };
    }],
  ['GET /api/sites/:id/sso-secrets', [401, 401, 403, 403, 403, 403, 403, 200, 404, 401, 401],
    async (w) => ({ path: `/api/sites/${A(w)}/sso-secrets` })],
  ['DELETE /api/sites/:id/sso-secrets/:secret_id', [401, 401, 403, 403, 403, 403, 403, 200, 404, 401, 401],
    async (w) => {
      await roomForSecret(w);
      const made = await w.parley.request('POST', `/api/sites/${A(w)}/sso-secrets`, { token: w.adminKey });
      return { path: `/api/sites/${A(w)}/sso-secrets/${made.body.id}` };
    }],
  ['GET /v1/widget', [200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401],
    async (w) => ({ path: `/v1/widget?site_id=${A(w)}` })],
  ['POST /v1/comments', [201, 201, 201, 201, 404, 201, 201, 201, 404, 401, 401],
    async (w) => ({ path: '/v1/comments', body: { site_id: A(w), thread_url: w.thread, content: 'hello' } })],
  ['PATCH /v1/comments/:id', [401, 401, 200, 403, 404, 403, 403, 403, 404, 401, 401],
    async (w) => ({ path: comment(w), body: { content: 'edited' } })],
  ['DELETE /v1/comments/:id', [401, 401, 200, 403, 404, 403, 200, 200, 404, 401, 401],
    async (w) => ({ path: `/v1/comments/${await w.post(w.credential.user, 'to delete')}` })],
  ['POST /v1/comments/:id/vote', [401, 401, 200, 200, 404, 200, 200, 200, 404, 401, 401],
    async (w) => ({ path: `${comment(w)}/vote`, body: { vote_type: 'up' } })],
  ['DELETE /v1/comments/:id/vote', [401, 401, 200, 200, 404, 200, 200, 200, 404, 401, 401],
    async (w) => ({ path: `${comment(w)}/vote` })],
  ['POST /v1/comments/:id/react', [401, 401, 200, 200, 404, 200, 200, 200, 404, 401, 401],
    async (w) => ({ path: `${comment(w)}/react`, body: { reaction_type: 'funny' } })],
  ['POST /v1/comments/:id/flag', [200, 200, 200, 200, 404, 200, 200, 200, 404, 401, 401],
    async (w) => ({ path: `${comment(w)}/flag`, body: { reason: 'spam?' } })],
  ['PATCH /v1/comments/:id/moderate', [401, 401, 403, 403, 404, 403, 200, 200, 404, 401, 401],
    async (w) => ({ path: `${comment(w)}/moderate`, body: { action: 'approve' } })],
  ['POST /v1/sessions', [401, 401, 403, 403, 403, 201, 201, 201, 404, 401, 401],
    async (w) => ({ path: '/v1/sessions', body: { site_id: A(w), user: { id: 'dave', name: 'Dave' } } })],
  ['GET /v1/sites', [401, 401, 200, 200, 200, 200, 200, 200, 200, 401, 401],
    async () => ({ path: '/v1/sites' })],
  ['POST /api/sites', [401, 401, 403, 403, 403, 403, 403, 201, 201, 401, 401],
    async () => ({ path: '/api/sites', body: { name: 'Another site' } })],
  ['GET /api/sites/:id', [401, 401, 403, 403, 403, 403, 403, 200, 404, 401, 401],
    async (w) => ({ path: `/api/sites/${A(w)}` })],
  ['PATCH /api/sites/:id', [401, 401, 403, 403, 403, 403, 403, 200, 404, 401, 401],
    async (w) => ({ path: `/api/sites/${A(w)}`, body: { name: 'Home' } })],
  ['POST /api/keys', [401, 401, 403, 403, 403, 403, 403, 201, 201, 401, 401],
    async () => ({ path: '/api/keys', body: { role: 'integration' } })],
  ['DELETE /api/keys/:id', [401, 401, 403, 403, 403, 403, 403, 200, 404, 401, 401],
    async (w) => {
      const key = await w.parley.request('POST', '/api/keys', { token: w.adminKey, body: { role: 'integration' } });
      return { path: `/api/keys/${key.body.id}` };
    }],
  ['POST /api/sites/:id/bans', [401, 401, 403, 403, 403, 403, 403, 201, 404, 401, 401],
    async (w) => ({ path: `/api/sites/${A(w)}/bans`, body: { user_id: (await w.newUser(`target-${Math.random()}`)).id } })],
  ['GET /api/sites/:id/webhooks/deliveries', [401, 401, 403, 403, 403, 403, 403, 200, 404, 401, 401],
    async (w) => ({ path: `/api/sites/${A(w)}/webhooks/deliveries` })],
  ['POST /api/sites/:id/webhooks/test', [401, 401, 403, 403, 403, 403, 403, 200, 404, 401, 401],
    async (w) => ({ path: `/api/sites/${A(w)}/webhooks/test`, body: {} })],
  ['POST /api/sites/:id/webhooks/deliveries/:deliveryId/redeliver', [401, 401, 403, 403, 403, 403, 403, 200, 404, 401, 401],
    async (w) => {
      const sent = await w.parley.request('POST', `/api/sites/${A(w)}/webhooks/test`, { token: w.adminKey, body: {} });
      return { path: `/api/sites/${A(w)}/webhooks/deliveries/${sent.body.id}/redeliver` };
    }],
  ['GET /api/sites/:id/sessions', [401, 401, 403, 403, 403, 403, 403, 200, 404, 401, 401],
    async (w) => ({ path: `/api/sites/${A(w)}/sessions` })],
  // A user of their own per cell: ending every session of the site would sign the session callers out.
  ['DELETE /api/sites/:id/sessions', [401, 401, 403, 403, 403, 403, 403, 200, 404, 401, 401],
    async (w) => ({ path: `/api/sites/${A(w)}/sessions?user_id=${(await w.newUser(`leaving-${Math.random()}`)).id}` })],
  ['DELETE /api/sites/:id/sessions/:session_id', [401, 401, 403, 403, 403, 403, 403, 200, 404, 401, 401],
    async (w) => {
      const user = await w.newUser(`signed-out-${Math.random()}`);
      const listed = await w.parley.request('GET', `/api/sites/${A(w)}/sessions?user_id=${user.id}`, { token: w.adminKey });
      return { path: `/api/sites/${A(w)}/sessions/${listed.body.sessions[0].id}` };
    }],
  // Last: it signs the session callers out.
  ['DELETE /v1/sessions/current', [401, 401, 204, 204, 204, 403, 403, 403, 403, 401, 401],
    async () => ({ path: '/v1/sessions/current' })],
];

/** A stream's status and headers, and its body when it is a problem; an open stream is closed at once. */
async function streamAnswer(url: string, token: string | undefined): Promise<ApiResponse> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: abort.signal });
  const body = response.status === 200 ? undefined : await response.json();
  abort.abort();
  return { status: response.status, headers: response.headers, body };
}

const CODE_OF: Record<number, string> = { 401: 'unauthorized', 403: 'forbidden', 404: 'not_found' };

/** Extra checks a suite makes on every cell's answer. */
export type CellCheck = (response: ApiResponse, endpoint: string, caller: CallerName, status: number) => void;

/**
 * Every row against every caller, on a fresh world served with `env`; each cell's status, problem
 * body and WWW-Authenticate asserted, then `check`. Returns the world, for checks of the table itself.
 */
export function describeMatrix(title: string, env: Record<string, string>, check?: CellCheck): () => World {
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
      it.each(CALLERS.map((caller, i) => [caller, statuses[i]] as [CallerName, number]))('as %s answers %i', async (caller, status) => {
        const { path, body } = await target(world);
        const token = world.credential[caller] ?? undefined;
        const response = endpoint === 'GET /v1/comments/stream'
          ? await streamAnswer(world.parley.url + path, token)
          : await world.parley.request(endpoint.split(' ')[0], path, { token, body });
        expect(response.status, JSON.stringify(response.body)).toBe(status);
        if (status >= 400) {
          expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
          expect(response.body).toMatchObject({ status, code: CODE_OF[status] });
          if (status === 401) expect(response.headers.get('www-authenticate')).toBe('Bearer');
        }
        if (endpoint === 'GET /v1/widget' && status === 200) {
          expect(response.body.viewer.signed_in).toBe(!['none', 'guest', 'otherSiteSession', 'otherAccountKey'].includes(caller));
        }
        if (endpoint === 'GET /v1/sites' && status === 200) {
          const sees = response.body.sites.some((site: { id: string }) => site.id === world.siteA);
          expect(sees).toBe(!['otherSiteSession', 'otherAccountKey'].includes(caller));
        }
        check?.(response, endpoint, caller, status);
      });
    });
  });
  return () => world;
}
