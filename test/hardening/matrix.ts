import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/auth/secrets.ts';
import { newId } from '../../src/ids.ts';
import { CONFIRM_LIFETIME_MS, newConfirmToken, newLinkKey, unsubscribeUrl } from '../../src/mail/links.ts';
import { issueSignInCode } from '../../src/readers/email/service.ts';
import { findSite, type Site } from '../../src/sites/repository.ts';
import { createLink } from '../../src/staff/links.ts';
import { startGithubServer, type TestGithubServer } from '../github-server.ts';
import { pageUrl, startParley, type ApiResponse } from '../helper.ts';
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
type Target = (w: World, caller: CallerName) => Promise<{
  path: string;
  body?: unknown;
  /** A form body (urlencoded), as a mail page's button posts it. */
  form?: string;
  /** `manual` for an endpoint that redirects away from Parley: its own answer is checked, not the page it leads to. */
  redirect?: RequestRedirect;
  /** What must hold after a successful answer, beyond its status (a lifecycle case). */
  verify?: (response: ApiResponse) => Promise<void>;
}>;

const A = (w: World) => w.siteA;
const comment = (w: World) => `/v1/comments/${w.userComment}`;
const team = (w: World) => `/api/accounts/${w.accountA}`;
const newModerator = (w: World) => addStaff(w.parley, w.accountA, 'moderator');

/** A /v1 row: staff callers' cookies are not read there, so each answers as `none` does. */
const v1 = (statuses: number[]) => [...statuses, ...STAFF_CALLERS.map(() => statuses[0])];
/** Administering (sites, keys, webhooks, the team): owners and admins of the account and its admin key; other roles 403 before any lookup, other accounts 404. */
const adminRow = (ok: number) => [401, 401, 403, 403, 403, 403, 403, ok, 404, 401, 401, ok, ok, 403, 403, 404];
/** Moderating site A: its account's owners, admins and moderators, and its moderator and admin keys; a moderator of another site and other accounts 404. */
const moderateRow = (ok: number) => [401, 401, 403, 403, 403, 403, ok, ok, 404, 401, 401, ok, ok, ok, 404, 404];
/** Anyone may use it (it proves itself in its body), but a refused credential is 401. */
const signInRow = (ok: number) => [ok, ok, ok, ok, ok, ok, ok, ok, ok, 401, 401, ok, ok, ok, ok, ok];
/** A staff member's own sign-in: the cookie only. */
const staffRow = (ok: number) => [401, 401, 403, 403, 403, 403, 403, 403, 403, 401, 401, ok, ok, ok, ok, ok];

/** A comment of a session user on site A, removed by a moderator: what its author may contest. */
async function removedComment(w: World, author: 'user' | 'otherUser'): Promise<string> {
  const id = await w.post(w.credential[author]);
  await w.parley.request('PATCH', `/v1/comments/${id}/moderate`, { token: w.adminKey, body: { action: 'remove' } });
  return id;
}

/**
 * What a cell of the contest row contests: the author's own cell a fresh removal; every refused cell
 * one removal they share, as each fresh one spends a comment of the author's hourly limit.
 */
const sharedRemovals = new WeakMap<World, Promise<string>>();
function contestable(w: World, caller: CallerName): Promise<string> {
  if (caller === 'user') return removedComment(w, 'user');
  if (!sharedRemovals.has(w)) sharedRemovals.set(w, removedComment(w, 'user'));
  return sharedRemovals.get(w)!;
}

/** A header-only file of Parley's format, imported as a dry run: a job that fails at once and writes nothing. */
const IMPORT_FILE = { type: 'header', format: 'parley', version: 1, site: { id: 'site_elsewhere', name: 'Elsewhere' } };

/** Where the matrix's alerts point: nothing listens there, so a test message is refused at once. */
const ALERT_URL = 'http://127.0.0.1:9/alerts';

/** A Slack alert of site A (through the database: no request spends a cell's limits). */
async function newAlert(w: World): Promise<string> {
  const id = newId('alr');
  await w.parley.app.db.kysely
    .insertInto('site_alerts')
    .values({ id, site_id: A(w), kind: 'slack', url: ALERT_URL, token: null, chat_id: null, room: null, events: '["comment.held"]', flag_threshold: 1, created_at: new Date().toISOString() })
    .execute();
  return id;
}

/** A site runs one import at a time: each cell that starts one first waits for the one before to end. */
async function noImportRunning(w: World): Promise<void> {
  // Each import runs in a process of its own, which takes a few seconds to start on a busy machine.
  // Read from the database, not the API: polling would spend the rate limits the cells are checked under.
  for (let tries = 0; tries < 1200; tries++) {
    const running = await w.parley.app.db.kysely.selectFrom('import_jobs').select('id').where('site_id', '=', A(w)).where('status', 'in', ['queued', 'running']).executeTakeFirst();
    if (!running) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A reader's address on site A waiting for confirmation, as a comment with "Email me replies" leaves it: its confirmation and unsubscribe links. */
async function mailLinks(w: World): Promise<{ confirm: string; unsubscribe: string; email: string }> {
  const token = newConfirmToken();
  const now = Date.now();
  const row = {
    id: newId('mad'),
    site_id: A(w),
    email: `reader-${now}-${Math.random()}@example.com`,
    user_id: null,
    link_key: newLinkKey(),
    confirmed_at: null,
    confirm_token_hash: hashSecret(token),
    confirm_expires_at: new Date(now + CONFIRM_LIFETIME_MS).toISOString(),
    unsubscribed_at: null,
    created_at: new Date(now).toISOString(),
  };
  await w.parley.app.db.kysely.insertInto('mail_addresses').values(row).execute();
  const unsubscribe = new URL(unsubscribeUrl('http://x', row.link_key, { address: row.id, scope: 'all', target: '' }));
  return { confirm: `/v1/mail/confirm?token=${token}`, unsubscribe: unsubscribe.pathname + unsubscribe.search, email: row.email };
}

/** Site A's row for a reader's address (its own per cell): confirmed once by its owner, and with `stopped`, "stop all mail" in force. */
async function readerAddress(w: World, stopped: boolean) {
  const now = new Date().toISOString();
  const row = {
    id: newId('mad'),
    site_id: A(w),
    email: `owner-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`,
    user_id: null,
    link_key: newLinkKey(),
    confirmed_at: now,
    confirm_token_hash: null,
    confirm_expires_at: null,
    unsubscribed_at: stopped ? now : null,
    created_at: now,
  };
  await w.parley.app.db.kysely.insertInto('mail_addresses').values(row).execute();
  return row;
}

/** The address's row, its subscriptions and the mails queued for it, as the checks after a cell read them. */
async function mailState(w: World, email: string) {
  const db = w.parley.app.db.kysely;
  const address = await db.selectFrom('mail_addresses').selectAll().where('site_id', '=', A(w)).where('email', '=', email).executeTakeFirstOrThrow();
  const subscriptions = await db.selectFrom('mail_subscriptions').selectAll().where('address_id', '=', address.id).execute();
  const mails = await db.selectFrom('mail_outbox').select(['kind']).where('recipient', '=', email).execute();
  return { address, subscriptions, mails };
}

/** A reader's comment with "Email me replies" for `email`. */
const subscribing = (w: World, email: string) => ({ path: '/v1/comments', body: { site_id: A(w), thread_url: w.thread, content: 'mail me', notify_replies: true, email } });

/** A site readers sign in on by email (it lists a domain, as that needs), one per world. */
const readerSites = new WeakMap<World, Promise<Site>>();
function readerSite(w: World): Promise<Site> {
  if (!readerSites.has(w)) readerSites.set(w, w.parley.newSite({ siteName: 'Readers', domains: ['blog.example.com'] }).then(async ({ site_id }) => (await findSite(w.parley.app.db.kysely, site_id))!));
  return readerSites.get(w)!;
}

/** A sign-in code mailed (as POST /v1/auth/email does) to an address of its own, and its link's path. */
async function signInCode(w: World, returnTo: string | null) {
  const site = await readerSite(w);
  const email = `reader-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;
  const { code, linkToken } = await issueSignInCode(w.parley.app.db, site, email, returnTo === null ? null : new URL(returnTo), null);
  return { site_id: site.id, email, code, link: `/v1/auth/email/link?token=${linkToken}` };
}

/** The link a staff member's address confirmation mail holds, for a new moderator of account A. */
async function verifyLink(w: World): Promise<string> {
  const { id, email } = await newModerator(w);
  const { token } = await createLink(w.parley.app.db.kysely, { kind: 'verify', accountId: w.accountA, staffId: id, email, createdBy: id });
  return `/api/auth/verify-email?token=${token}`;
}

/** The staff callers' addresses unconfirmed (as a join through a link leaves them), or confirmed again. */
async function staffCallersConfirmed(w: World, confirmed: boolean): Promise<void> {
  const verifiedAt = confirmed ? new Date().toISOString() : null;
  await w.parley.app.db.kysely.updateTable('staff').set({ email_verified_at: verifiedAt }).where('id', 'in', w.staffIds).execute();
}

/** A site holds three SSO secrets at most: each cell that makes one first deletes the others. */
async function roomForSecret(w: World): Promise<void> {
  for (const { id } of (await w.parley.request('GET', `/api/sites/${A(w)}/sso-secrets`, { token: w.adminKey })).body.secrets) {
    await w.parley.request('DELETE', `/api/sites/${A(w)}/sso-secrets/${id}`, { token: w.adminKey });
  }
}

/** Site A's GitHub-shaped identity provider (a server on 127.0.0.1, one per world), for the reader sign-in rows. */
const githubs = new Map<World, Promise<{ server: TestGithubServer; providerId: string }>>();
afterAll(async () => {
  for (const github of githubs.values()) await (await github).server.close();
});
function githubOf(w: World) {
  if (!githubs.has(w)) {
    githubs.set(w, (async () => {
      const server = await startGithubServer();
      const body = { type: 'github', name: 'GitHub', client_id: server.clientId, client_secret: server.clientSecret, issuer: server.url };
      const made = await w.parley.request('POST', `/api/sites/${A(w)}/identity-providers`, { token: w.adminKey, body });
      return { server, providerId: made.body.id as string };
    })());
  }
  return githubs.get(w)!;
}
const providerPath = async (w: World) => `/api/sites/${A(w)}/identity-providers/${(await githubOf(w)).providerId}`;
/** Where a reader starts signing in at site A's provider, coming back to a page of this server. */
const startPath = async (w: World) => `/v1/auth/providers/${(await githubOf(w)).providerId}/start?${new URLSearchParams({ site_id: A(w), return_to: `${w.parley.config.publicUrl}/` })}`;

//                       none guest user other otherSite integ mod admin otherAcct revoked expired | owner admin mod siteMod otherAcct (staff)
export const MATRIX: Array<[string, number[], Target]> = [
  ['GET /v1/comments', v1([200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401]),
    async (w) => ({ path: `/v1/comments?site_id=${A(w)}&thread_url=${encodeURIComponent(w.thread)}` })],
  ['GET /v1/counts', v1([200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401]),
    async (w) => ({ path: `/v1/counts?site_id=${A(w)}&url=${encodeURIComponent(w.thread)}&url=${encodeURIComponent(pageUrl())}` })],
  ['GET /v1/comments/recent', v1([200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401]),
    async (w) => ({ path: `/v1/comments/recent?site_id=${A(w)}&limit=5` })],
  ['GET /v1/feeds/thread.atom', v1([200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401]),
    async (w) => ({ path: `/v1/feeds/thread.atom?site_id=${A(w)}&thread_url=${encodeURIComponent(w.thread)}` })],
  ['GET /v1/feeds/site.atom', v1([200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401]),
    async (w) => ({ path: `/v1/feeds/site.atom?site_id=${A(w)}` })],
  ['GET /v1/comments/html', v1([200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401]),
    async (w) => ({ path: `/v1/comments/html?site_id=${A(w)}&thread_url=${encodeURIComponent(w.thread)}` })],
  // A form's post goes back to the page (here Parley's own, as the demo's; site A lists no domains), the
  // refusal too: another site's session and another account's key come back with parley_notice=not_found.
  ['POST /v1/comments/form', v1([303, 303, 303, 303, 303, 303, 303, 303, 303, 401, 401]),
    async (w) => ({
      path: '/v1/comments/form',
      form: new URLSearchParams({ site_id: A(w), thread_url: `${w.parley.config.publicUrl}/matrix-form`, content: 'from a form' }).toString(),
      redirect: 'manual',
    })],
  ['GET /v1/comments/:id', v1([200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401]),
    async (w) => ({ path: comment(w) })],
  ['GET /v1/comments/stream', v1([200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401]),
    async (w) => ({ path: `/v1/comments/stream?site_id=${A(w)}&thread_url=${encodeURIComponent(w.thread)}` })],
  ['GET /v1/comments/participants', v1([200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401]),
    async (w) => ({ path: `/v1/comments/participants?site_id=${A(w)}&thread_url=${encodeURIComponent(w.thread)}` })],
  ['POST /v1/sso/exchange', v1([401, 401, 401, 401, 401, 401, 401, 401, 401, 401, 401]),
    async () => ({ path: '/v1/sso/exchange', body: { token: 'not.a.token' } })],
  ['POST /api/sites/:id/sso-secrets', adminRow(201),
    async (w) => {
      await roomForSecret(w);
      return { path: `/api/sites/${A(w)}/sso-secrets` };
    }],
  ['GET /api/sites/:id/sso-secrets', adminRow(200),
    async (w) => ({ path: `/api/sites/${A(w)}/sso-secrets` })],
  ['DELETE /api/sites/:id/sso-secrets/:secret_id', adminRow(200),
    async (w) => {
      await roomForSecret(w);
      const made = await w.parley.request('POST', `/api/sites/${A(w)}/sso-secrets`, { token: w.adminKey });
      return { path: `/api/sites/${A(w)}/sso-secrets/${made.body.id}` };
    }],
  // The matrix's server has a metrics token: no caller's credential, key or cookie opens it.
  ['GET /metrics', [401, 401, 401, 401, 401, 401, 401, 401, 401, 401, 401, 401, 401, 401, 401, 401],
    async () => ({ path: '/metrics' })],
  ['GET /v1/widget', v1([200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401]),
    async (w) => ({ path: `/v1/widget?site_id=${A(w)}` })],
  // Anyone may preview a comment on any site: it stores nothing, and is limited as reads are.
  ['POST /v1/comments/preview', v1([200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401]),
    async (w) => ({ path: '/v1/comments/preview', body: { site_id: A(w), content: 'a **preview**' } })],
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
  ['POST /v1/comments/:id/pin', v1([401, 401, 403, 403, 404, 403, 200, 200, 404, 401, 401]),
    async (w) => ({ path: `${comment(w)}/pin` })],
  ['DELETE /v1/comments/:id/pin', v1([401, 401, 403, 403, 404, 403, 200, 200, 404, 401, 401]),
    async (w) => ({ path: `${comment(w)}/pin` })],
  ['POST /v1/sessions', v1([401, 401, 403, 403, 403, 201, 201, 201, 404, 401, 401]),
    async (w) => ({ path: '/v1/sessions', body: { site_id: A(w), user: { id: 'dave', name: 'Dave' } } })],
  ['GET /v1/sites', v1([401, 401, 200, 200, 200, 200, 200, 200, 200, 401, 401]),
    async () => ({ path: '/v1/sites' })],
  ['POST /api/sites', [401, 401, 403, 403, 403, 403, 403, 201, 201, 401, 401, 201, 201, 403, 403, 201],
    async () => ({ path: '/api/sites', body: { name: 'Another site' } })],
  ['GET /api/sites/:id', adminRow(200),
    async (w) => ({ path: `/api/sites/${A(w)}` })],
  ['PATCH /api/sites/:id', adminRow(200),
    async (w) => ({ path: `/api/sites/${A(w)}`, body: { name: 'Home' } })],
  ['POST /api/keys', [401, 401, 403, 403, 403, 403, 403, 201, 201, 401, 401, 201, 201, 403, 403, 201],
    async () => ({ path: '/api/keys', body: { role: 'integration' } })],
  ['DELETE /api/keys/:id', adminRow(200),
    async (w) => {
      const key = await w.parley.request('POST', '/api/keys', { token: w.adminKey, body: { role: 'integration' } });
      return { path: `/api/keys/${key.body.id}` };
    }],
  ['POST /api/sites/:id/bans', moderateRow(201),
    async (w) => ({ path: `/api/sites/${A(w)}/bans`, body: { user_id: (await w.newUser(`target-${Math.random()}`)).id } })],
  ['GET /api/sites/:id/webhooks/deliveries', adminRow(200),
    async (w) => ({ path: `/api/sites/${A(w)}/webhooks/deliveries` })],
  ['POST /api/sites/:id/webhooks/test', adminRow(200),
    async (w) => ({ path: `/api/sites/${A(w)}/webhooks/test`, body: {} })],
  ['POST /api/sites/:id/webhooks/deliveries/:deliveryId/redeliver', adminRow(200),
    async (w) => {
      const sent = await w.parley.request('POST', `/api/sites/${A(w)}/webhooks/test`, { token: w.adminKey, body: {} });
      return { path: `/api/sites/${A(w)}/webhooks/deliveries/${sent.body.id}/redeliver` };
    }],
  ['GET /api/sites/:id/alerts', adminRow(200),
    async (w) => ({ path: `/api/sites/${A(w)}/alerts` })],
  ['POST /api/sites/:id/alerts', adminRow(201),
    async (w) => ({ path: `/api/sites/${A(w)}/alerts`, body: { kind: 'slack', target: { url: ALERT_URL }, events: ['comment.held'] } })],
  ['PATCH /api/sites/:id/alerts/:alertId', adminRow(200),
    async (w) => ({ path: `/api/sites/${A(w)}/alerts/${await newAlert(w)}`, body: { flag_threshold: 2 } })],
  ['DELETE /api/sites/:id/alerts/:alertId', adminRow(204),
    async (w) => ({ path: `/api/sites/${A(w)}/alerts/${await newAlert(w)}` })],
  ['POST /api/sites/:id/alerts/:alertId/test', adminRow(200),
    async (w) => ({ path: `/api/sites/${A(w)}/alerts/${await newAlert(w)}/test` })],
  ['GET /api/sites/:id/alerts/:alertId/deliveries', adminRow(200),
    async (w) => ({ path: `/api/sites/${A(w)}/alerts/${await newAlert(w)}/deliveries` })],
  ['POST /api/auth/login', signInRow(200),
    async (w) => ({ path: '/api/auth/login', body: { email: w.ownerStaffEmail, password: STAFF_PASSWORD } })],
  ['GET /api/auth/me', staffRow(200), async () => ({ path: '/api/auth/me' })],
  ['GET /api/auth/me/mail', staffRow(200), async () => ({ path: '/api/auth/me/mail' })],
  ['PUT /api/auth/me/mail', staffRow(200), async () => ({ path: '/api/auth/me/mail', body: { moderation_mail: 'pending' } })],
  ['PUT /api/auth/me/language', staffRow(200), async () => ({ path: '/api/auth/me/language', body: { language: 'de' } })],
  // A mail's links work for whoever holds them, signed in or not; only a refused credential is 401.
  ['GET /v1/mail/confirm', v1([200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401]), async (w) => ({ path: (await mailLinks(w)).confirm })],
  ['POST /v1/mail/confirm', v1([200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401]), async (w) => ({ path: (await mailLinks(w)).confirm })],
  ['GET /v1/mail/unsubscribe', v1([200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401]), async (w) => ({ path: (await mailLinks(w)).unsubscribe })],
  ['POST /v1/mail/unsubscribe', v1([200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401]), async (w) => ({ path: (await mailLinks(w)).unsubscribe })],
  // Readers' email sign-in: anyone may ask and prove (the code does); only a refused credential is 401.
  ['POST /v1/auth/email', v1([202, 202, 202, 202, 202, 202, 202, 202, 202, 401, 401]),
    async (w) => ({ path: '/v1/auth/email', body: { site_id: (await readerSite(w)).id, email: `asks-${Math.random().toString(36).slice(2)}@example.com` } })],
  ['POST /v1/auth/email/verify', v1([201, 201, 201, 201, 201, 201, 201, 201, 201, 401, 401]),
    async (w) => {
      const { site_id, email, code } = await signInCode(w, null);
      return { path: '/v1/auth/email/verify', body: { site_id, email, code } };
    }],
  ['GET /v1/auth/email/link', v1([200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401]), async (w) => ({ path: (await signInCode(w, 'https://blog.example.com/post')).link })],
  // A link asked for without return_to: its page says to type the code (with one, 303 to the site's page).
  ['POST /v1/auth/email/link', v1([200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401]), async (w) => ({ path: (await signInCode(w, null)).link, form: '' })],
  // Double opt-in per subscription (issue 36, item 5). Readers only: an API key giving an address is
  // refused before any lookup. An address its owner confirmed on another comment: the new subscription
  // gets a confirmation mail of its own, and a reply to it mails nothing until that link is used.
  ['POST /v1/comments (an address confirmed on another comment)', v1([201, 201, 201, 201, 404, 403, 403, 403, 403, 401, 401]),
    async (w) => {
      const { email } = await readerAddress(w, false);
      const verify = async (response: ApiResponse) => {
        await w.post(w.adminKey, 'a reply', response.body.id);
        const { subscriptions, mails } = await mailState(w, email);
        expect(subscriptions).toMatchObject([{ comment_id: response.body.id, confirmed_at: null, confirm_token_hash: expect.any(String) }]);
        expect(mails.map((mail) => mail.kind)).toEqual(['confirm']);
      };
      return { ...subscribing(w, email), verify };
    }],
  // "Stop all mail" holds, whoever gives the address: no confirmation mail, the stop kept.
  ['POST /v1/comments (an address that stopped all mail)', v1([201, 201, 201, 201, 404, 403, 403, 403, 403, 401, 401]),
    async (w) => {
      const { email, unsubscribed_at } = await readerAddress(w, true);
      const verify = async () => {
        const { address, subscriptions, mails } = await mailState(w, email);
        expect(address.unsubscribed_at).toBe(unsubscribed_at);
        expect(subscriptions).toMatchObject([{ confirmed_at: null, confirm_token_hash: null }]);
        expect(mails).toEqual([]);
      };
      return { ...subscribing(w, email), verify };
    }],
  // Only a link of a mail sent to the address lifts the stop: whoever holds it, signed in or not.
  ['POST /v1/mail/unsubscribe (resume mail)', v1([200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401]),
    async (w) => {
      const address = await readerAddress(w, true);
      const link = new URL(unsubscribeUrl('http://x', address.link_key, { address: address.id, scope: 'all', target: '' }));
      const verify = async () => expect((await mailState(w, address.email)).address.unsubscribed_at).toBeNull();
      return { path: link.pathname + link.search, form: 'resume=mail', verify };
    }],
  // A confirmation link confirms the subscription it was mailed for, not one made beside it.
  ['POST /v1/mail/confirm (one subscription of two)', v1([200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401]),
    async (w) => {
      const links = await mailLinks(w);
      const email = links.email;
      const { address } = await mailState(w, email);
      const [mailedFor, beside] = [await w.post(w.adminKey, 'first'), await w.post(w.adminKey, 'second')];
      const { thread_id } = await w.parley.app.db.kysely.selectFrom('comments').select('thread_id').where('id', '=', mailedFor).executeTakeFirstOrThrow();
      const subscription = (comment_id: string, confirm_token_hash: string | null) =>
        ({ comment_id, address_id: address.id, thread_id, created_at: address.created_at, unsubscribed_at: null, confirmed_at: null, confirm_token_hash });
      await w.parley.app.db.kysely.insertInto('mail_subscriptions').values([subscription(mailedFor, address.confirm_token_hash), subscription(beside, null)]).execute();
      const verify = async () => {
        const { subscriptions } = await mailState(w, email);
        expect(subscriptions.find((s) => s.comment_id === mailedFor)?.confirmed_at).not.toBeNull();
        expect(subscriptions.find((s) => s.comment_id === beside)?.confirmed_at).toBeNull();
      };
      return { path: links.confirm, verify };
    }],
  ['GET /v1/sessions/current/mail', v1([401, 401, 200, 200, 200, 403, 403, 403, 403, 401, 401]), async () => ({ path: '/v1/sessions/current/mail' })],
  ['PUT /v1/sessions/current/mail', v1([401, 401, 200, 200, 200, 403, 403, 403, 403, 401, 401]),
    async () => ({ path: '/v1/sessions/current/mail', body: { notify_replies: true } })],
  // A reader's own page: sessions only. The world's sessions are the site's users (SSO or backend),
  // whose name, sign-in methods and deletion are the site's: 403 there (src/readers/me tests own accounts).
  ['GET /v1/me', v1([401, 401, 200, 200, 200, 403, 403, 403, 403, 401, 401]), async () => ({ path: '/v1/me' })],
  ['PATCH /v1/me', v1([401, 401, 403, 403, 403, 403, 403, 403, 403, 401, 401]), async () => ({ path: '/v1/me', body: { name: 'Renamed' } })],
  ['PATCH /v1/me (mention mail)', v1([401, 401, 200, 200, 200, 403, 403, 403, 403, 401, 401]), async () => ({ path: '/v1/me', body: { mention_mail: true } })],
  ['GET /v1/me/comments', v1([401, 401, 200, 200, 200, 403, 403, 403, 403, 401, 401]), async () => ({ path: '/v1/me/comments' })],
  ['GET /v1/me/export', v1([401, 401, 200, 200, 200, 403, 403, 403, 403, 401, 401]), async () => ({ path: '/v1/me/export' })],
  ['DELETE /v1/me/sign-in-methods/:id', v1([401, 401, 403, 403, 403, 403, 403, 403, 403, 401, 401]), async () => ({ path: '/v1/me/sign-in-methods/rid_none' })],
  ['POST /v1/me/guest-comments/claim', v1([401, 401, 200, 200, 200, 403, 403, 403, 403, 401, 401]), async () => ({ path: '/v1/me/guest-comments/claim' })],
  ['DELETE /v1/me', v1([401, 401, 403, 403, 403, 403, 403, 403, 403, 401, 401]), async () => ({ path: '/v1/me' })],
  // A reader's follows and notifications: their session only; another site's session finds no such site (404).
  ['POST /v1/follows', v1([401, 401, 201, 201, 404, 403, 403, 403, 403, 401, 401]),
    async (w) => ({ path: '/v1/follows', body: { site_id: A(w), thread_url: `${w.thread}?followed=${Math.random()}` } })],
  ['GET /v1/follows', v1([401, 401, 200, 200, 404, 403, 403, 403, 403, 401, 401]), async (w) => ({ path: `/v1/follows?site_id=${A(w)}` })],
  // The follow is the session user `user`'s: anyone else finds none.
  ['DELETE /v1/follows/:id', v1([401, 401, 204, 404, 404, 403, 403, 403, 403, 401, 401]),
    async (w) => {
      const follow = await w.parley.request('POST', '/v1/follows', { token: w.credential.user!, body: { site_id: A(w), thread_url: `${w.thread}?followed=${Math.random()}` } });
      return { path: `/v1/follows/${follow.body.id}` };
    }],
  ['GET /v1/notifications', v1([401, 401, 200, 200, 404, 403, 403, 403, 403, 401, 401]), async (w) => ({ path: `/v1/notifications?site_id=${A(w)}` })],
  ['POST /v1/notifications/read', v1([401, 401, 200, 200, 404, 403, 403, 403, 403, 401, 401]),
    async (w) => ({ path: '/v1/notifications/read', body: { site_id: A(w), all: true } })],
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
  // A staff address's confirmation link works for whoever holds it, signed in or not.
  ['GET /api/auth/verify-email', signInRow(200), async (w) => ({ path: await verifyLink(w) })],
  ['POST /api/auth/verify-email', signInRow(200), async (w) => ({ path: await verifyLink(w) })],
  // The person's own address only: the staff callers' are unconfirmed for the cell, and confirmed again once it has checked the mail.
  ['POST /api/auth/verify-email/resend', staffRow(202),
    async (w) => {
      await staffCallersConfirmed(w, false);
      return {
        path: '/api/auth/verify-email/resend',
        verify: async (response) => {
          const mails = await w.parley.app.db.kysely.selectFrom('mail_outbox').select('id').where('kind', '=', 'verify').where('recipient', '=', response.body.email).execute();
          expect(mails).toHaveLength(1);
          await staffCallersConfirmed(w, true);
        },
      };
    }],
  ['GET /api/accounts/:id/members', adminRow(200), async (w) => ({ path: `${team(w)}/members` })],
  ['PATCH /api/accounts/:id/members/:staffId', adminRow(200),
    async (w) => ({ path: `${team(w)}/members/${(await newModerator(w)).id}`, body: { role: 'admin' } })],
  ['DELETE /api/accounts/:id/members/:staffId', adminRow(200), async (w) => ({ path: `${team(w)}/members/${(await newModerator(w)).id}` })],
  ['POST /api/accounts/:id/members/:staffId/reset-link', adminRow(201),
    async (w) => ({ path: `${team(w)}/members/${(await newModerator(w)).id}/reset-link` })],
  ['GET /api/accounts/:id/invites', adminRow(200), async (w) => ({ path: `${team(w)}/invites` })],
  ['POST /api/accounts/:id/invites', adminRow(201), async (w) => ({ path: `${team(w)}/invites`, body: { role: 'moderator' } })],
  ['DELETE /api/accounts/:id/invites/:inviteId', adminRow(200),
    async (w) => {
      const invite = await w.parley.request('POST', `${team(w)}/invites`, { token: w.adminKey, body: { role: 'moderator' } });
      return { path: `${team(w)}/invites/${invite.body.id}` };
    }],
  ['GET /api/accounts/:id/audit-log', adminRow(200), async (w) => ({ path: `${team(w)}/audit-log` })],
  ['GET /api/sites/:id/sessions', adminRow(200),
    async (w) => ({ path: `/api/sites/${A(w)}/sessions` })],
  // A user of their own per cell: ending every session of the site would sign the session callers out.
  ['DELETE /api/sites/:id/sessions', adminRow(200),
    async (w) => ({ path: `/api/sites/${A(w)}/sessions?user_id=${(await w.newUser(`leaving-${Math.random()}`)).id}` })],
  ['DELETE /api/sites/:id/sessions/:session_id', adminRow(200),
    async (w) => {
      const user = await w.newUser(`signed-out-${Math.random()}`);
      const listed = await w.parley.request('GET', `/api/sites/${A(w)}/sessions?user_id=${user.id}`, { token: w.adminKey });
      return { path: `/api/sites/${A(w)}/sessions/${listed.body.sessions[0].id}` };
    }],
  // The management API: moderating (owner, admin, moderator) or administering (owner, admin).
  ['GET /api/sites', [401, 401, 403, 403, 403, 403, 200, 200, 200, 401, 401, 200, 200, 200, 200, 200],
    async () => ({ path: '/api/sites' })],
  ['DELETE /api/sites/:id', adminRow(200),
    async (w) => {
      const site = await w.parley.request('POST', '/api/sites', { token: w.adminKey, body: { name: 'Doomed' } });
      return { path: `/api/sites/${site.body.id}`, body: { confirm: 'Doomed' } };
    }],
  ['GET /api/keys', [401, 401, 403, 403, 403, 403, 403, 200, 200, 401, 401, 200, 200, 403, 403, 200],
    async () => ({ path: '/api/keys' })],
  ['PATCH /api/keys/:id', adminRow(200),
    async (w) => {
      const key = await w.parley.request('POST', '/api/keys', { token: w.adminKey, body: { role: 'integration' } });
      return { path: `/api/keys/${key.body.id}`, body: { name: 'renamed' } };
    }],
  ['GET /api/comments', moderateRow(200),
    async (w) => ({ path: `/api/comments?site_id=${A(w)}&status=all&q=written&author=a&thread=${encodeURIComponent('/')}` })],
  ['GET /api/comments/stream', moderateRow(200),
    async (w) => ({ path: `/api/comments/stream?site_id=${A(w)}` })],
  ['GET /api/comments/counts', moderateRow(200),
    async (w) => ({ path: `/api/comments/counts?site_id=${A(w)}` })],
  ['POST /api/comments/moderate', [401, 401, 403, 403, 403, 403, 200, 200, 200, 401, 401, 200, 200, 200, 200, 200],
    async (w) => ({ path: '/api/comments/moderate', body: { ids: [await w.post(w.credential.integrationKey, 'to approve')], action: 'approve' } })],
  ['POST /api/comments', moderateRow(201),
    async (w) => ({ path: '/api/comments', body: { site_id: A(w), thread_url: w.thread, parent_id: w.userComment, content: 'A reply from the team' } })],
  // Answered per id, as bulk actions are: a comment out of reach is that id's not_found, a comment with nothing of the caller's to undo its conflict.
  ['POST /api/comments/moderate/undo', [401, 401, 403, 403, 403, 403, 200, 200, 200, 401, 401, 200, 200, 200, 200, 200],
    async (w) => ({ path: '/api/comments/moderate/undo', body: { ids: [w.userComment] } })],
  ['POST /api/comments/:id/pin', moderateRow(200),
    async (w) => ({ path: `/api/comments/${w.userComment}/pin` })],
  ['DELETE /api/comments/:id/pin', moderateRow(200),
    async (w) => ({ path: `/api/comments/${w.userComment}/pin` })],
  ['GET /api/comments/:id/flags', moderateRow(200),
    async (w) => ({ path: `/api/comments/${w.userComment}/flags` })],
  ['GET /api/comments/:id/revisions', moderateRow(200),
    async (w) => ({ path: `/api/comments/${w.userComment}/revisions` })],
  ['GET /api/sites/:id/moderation-log', moderateRow(200),
    async (w) => ({ path: `/api/sites/${A(w)}/moderation-log?since=2020-01-01T00:00:00Z` })],
  ['GET /api/moderation-log', moderateRow(200),
    async (w) => ({ path: `/api/moderation-log?site_id=${A(w)}&action=approve` })],
  // Contested decisions: the comment's author's session contests; the site's moderators answer.
  ['POST /v1/comments/:id/contest', v1([401, 401, 201, 404, 404, 403, 403, 403, 403, 401, 401]),
    async (w, caller) => ({ path: `/v1/comments/${await contestable(w, caller)}/contest`, body: { message: 'Please look again' } })],
  ['GET /api/contests', moderateRow(200), async (w) => ({ path: `/api/contests?site_id=${A(w)}&state=open` })],
  ['POST /api/contests/:id/resolve', moderateRow(200),
    async (w) => {
      // Contested by the other reader, whose hourly limit the contest row leaves untouched.
      const contest = await w.parley.request('POST', `/v1/comments/${await removedComment(w, 'otherUser')}/contest`, { token: w.credential.otherUser!, body: { message: 'Please look again' } });
      return { path: `/api/contests/${contest.body.id}/resolve`, body: { outcome: 'upheld', note: 'It stays removed' } };
    }],
  ['GET /api/sites/:id/users/:user_id', moderateRow(200),
    async (w) => ({ path: `/api/sites/${A(w)}/users/${await w.userId('alice')}` })],
  ['PATCH /api/sites/:id/users/:user_id', moderateRow(200),
    async (w) => ({ path: `/api/sites/${A(w)}/users/${await w.userId('alice')}`, body: { labels: ['Regular'] } })],
  ['POST /api/sites/:id/users/:user_id/notes', moderateRow(201),
    async (w) => ({ path: `/api/sites/${A(w)}/users/${await w.userId('alice')}/notes`, body: { body: 'a note' } })],
  // The note is the admin key's: a moderator who did not write it may not delete it.
  ['DELETE /api/sites/:id/users/:user_id/notes/:note_id', [401, 401, 403, 403, 403, 403, 403, 200, 404, 401, 401, 200, 200, 403, 404, 404],
    async (w) => {
      const user = await w.userId('alice');
      const note = await w.parley.request('POST', `/api/sites/${A(w)}/users/${user}/notes`, { token: w.adminKey, body: { body: 'to delete' } });
      return { path: `/api/sites/${A(w)}/users/${user}/notes/${note.body.id}` };
    }],
  ['POST /api/sites/:id/users/:user_id/moderate', moderateRow(200),
    async (w) => ({ path: `/api/sites/${A(w)}/users/${(await w.newUser(`quiet-${Math.random()}`)).id}/moderate`, body: { action: 'remove' } })],
  ['DELETE /api/sites/:id/users/:user_id', adminRow(204),
    async (w) => ({ path: `/api/sites/${A(w)}/users/${(await w.newUser(`erased-${Math.random()}`)).id}` })],
  ['GET /api/sites/:id/bans', moderateRow(200),
    async (w) => ({ path: `/api/sites/${A(w)}/bans` })],
  ['DELETE /api/sites/:id/bans/:ban_id', moderateRow(200),
    async (w) => {
      const user = await w.newUser(`banned-${Math.random()}`);
      const ban = await w.parley.request('POST', `/api/sites/${A(w)}/bans`, { token: w.adminKey, body: { user_id: user.id } });
      return { path: `/api/sites/${A(w)}/bans/${ban.body.id}` };
    }],
  ['GET /api/sites/:id/threads', moderateRow(200),
    async (w) => ({ path: `/api/sites/${A(w)}/threads` })],
  ['PATCH /api/sites/:id/threads/:thread_id', moderateRow(200),
    async (w) => {
      // A thread of its own: closing the world's thread would refuse the comments other rows post.
      const thread = pageUrl();
      await w.parley.request('POST', '/v1/comments', { token: w.adminKey, body: { site_id: A(w), thread_url: thread, content: 'x' } });
      const listed = await w.parley.request('GET', `/api/sites/${A(w)}/threads?url=${encodeURIComponent(thread)}`, { token: w.adminKey });
      return { path: `/api/sites/${A(w)}/threads/${listed.body.threads[0].id}`, body: { closed: true } };
    }],
  ['GET /api/sites/:id/stats', moderateRow(200),
    async (w) => ({ path: `/api/sites/${A(w)}/stats` })],
  ['GET /api/sites/:id/classifier', moderateRow(200),
    async (w) => ({ path: `/api/sites/${A(w)}/classifier` })],
  ['POST /api/sites/:id/imports', adminRow(202),
    async (w) => {
      await noImportRunning(w);
      return { path: `/api/sites/${A(w)}/imports?dry_run=true`, body: IMPORT_FILE };
    }],
  ['GET /api/sites/:id/imports', adminRow(200), async (w) => ({ path: `/api/sites/${A(w)}/imports` })],
  ['GET /api/sites/:id/imports/:job_id', adminRow(200),
    async (w) => {
      await noImportRunning(w);
      const job = await w.parley.request('POST', `/api/sites/${A(w)}/imports?dry_run=true`, { token: w.adminKey, body: IMPORT_FILE });
      return { path: `/api/sites/${A(w)}/imports/${job.body.id}` };
    }],
  ['GET /api/sites/:id/export', adminRow(200), async (w) => ({ path: `/api/sites/${A(w)}/export` })],
  // Reader sign-in at identity providers: site admins manage them; anyone may sign in (a refused credential is still 401).
  ['POST /api/sites/:id/identity-providers', adminRow(201),
    async (w) => ({ path: `/api/sites/${A(w)}/identity-providers`, body: { type: 'google', name: 'Google', client_id: 'c', client_secret: 's' } })],
  ['GET /api/sites/:id/identity-providers', adminRow(200), async (w) => ({ path: `/api/sites/${A(w)}/identity-providers` })],
  ['GET /api/sites/:id/identity-providers/:provider_id', adminRow(200), async (w) => ({ path: await providerPath(w) })],
  ['PATCH /api/sites/:id/identity-providers/:provider_id', adminRow(200), async (w) => ({ path: await providerPath(w), body: { name: 'GitHub' } })],
  ['POST /api/sites/:id/identity-providers/:provider_id/test', adminRow(200), async (w) => ({ path: `${await providerPath(w)}/test` })],
  ['DELETE /api/sites/:id/identity-providers/:provider_id', adminRow(200),
    async (w) => {
      const made = await w.parley.request('POST', `/api/sites/${A(w)}/identity-providers`, { token: w.adminKey, body: { type: 'google', name: 'Gone', client_id: 'c', client_secret: 's' } });
      return { path: `/api/sites/${A(w)}/identity-providers/${made.body.id}` };
    }],
  // To the provider's authorization page: anyone may start, but a refused credential is 401.
  ['GET /v1/auth/providers/:provider_id/start', v1([302, 302, 302, 302, 302, 302, 302, 302, 302, 401, 401]), async (w) => ({ path: await startPath(w), redirect: 'manual' })],
  // A sign-in approved at the provider: its callback signs the reader in (the pop-up page).
  ['GET /v1/auth/callback', v1([200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 401]),
    async (w) => {
      const { server } = await githubOf(w);
      const started = await fetch(w.parley.url + (await startPath(w)), { redirect: 'manual' });
      const back = await server.approve(started.headers.get('location')!, { id: 7, login: 'reader', emails: [] });
      return { path: back.pathname + back.search };
    }],
  // Last: they sign the session and staff callers out.
  ['DELETE /v1/sessions/current', v1([401, 401, 204, 204, 204, 403, 403, 403, 403, 401, 401]),
    async () => ({ path: '/v1/sessions/current' })],
  // The sessions were signed out by the row above.
  ['POST /api/auth/logout', [401, 401, 401, 401, 401, 403, 403, 403, 403, 401, 401, 204, 204, 204, 204, 204], async () => ({ path: '/api/auth/logout' })],
];

/** A stream's status and headers, and its body when it is a problem; an open stream is closed at once. */
async function streamAnswer(url: string, token: string | undefined, headers: Record<string, string>): Promise<ApiResponse> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { ...headers, ...(token && { authorization: `Bearer ${token}` }) }, signal: abort.signal });
  const body = response.status === 200 ? undefined : await response.json();
  abort.abort();
  return { status: response.status, headers: response.headers, body };
}

const CODE_OF: Record<number, string> = { 401: 'unauthorized', 403: 'forbidden', 404: 'not_found' };

/** Extra checks a suite makes on every cell's answer (`sentAt`: when its request was sent, ms). */
export type CellCheck = (response: ApiResponse, endpoint: string, caller: CallerName, status: number, sentAt: number) => void;

/** Cells a suite cannot run as the table states them. */
export type CellSkip = (endpoint: string, caller: CallerName) => boolean;

/**
 * Every row against every caller (but the cells `skip` names), on a fresh world served with `env`;
 * each cell's status, problem body and WWW-Authenticate asserted, then `check`. With `addressed`,
 * each caller sends from an address of its own (X-Forwarded-For; `env` must trust 127.0.0.1), so
 * the callers the limiter counts by address do not share one budget. Returns the world, for checks
 * of the table itself.
 */
export function describeMatrix(title: string, env: Record<string, string>, check?: CellCheck, skip?: CellSkip, addressed = false): () => World {
  let world: World;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    // Mail on, written to the (silent) log: the reply-mail rows check what gets queued.
    const mail = { PARLEY_SMTP_URL: 'log:', PARLEY_MAIL_FROM: 'comments@example.com' };
    world = await buildWorld(await startParley({ ...env, ...WEBHOOK_TEST_ENV, ...mail, PARLEY_METRICS_TOKEN: 'matrix-metrics-token-0123456789' }));
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
        const { path, body, form, redirect, verify } = await target(world, caller);
        const token = world.credential[caller] ?? undefined;
        const sentAt = Date.now();
        const address: Record<string, string> = addressed ? { 'x-forwarded-for': `203.0.113.${CALLERS.indexOf(caller) + 1}` } : {};
        const headers = { ...world.staffHeaders[caller], ...address };
        const response = endpoint.endsWith('/stream')
          ? await streamAnswer(world.parley.url + path, token, headers)
          : form !== undefined
            ? await world.parley.request(endpoint.split(' ')[0], path, { token, raw: form, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, redirect })
            : await world.parley.request(endpoint.split(' ')[0], path, { token, body, headers, redirect });
        expect(response.status, JSON.stringify(response.body)).toBe(status);
        if (status >= 400) {
          expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
          expect(response.body).toMatchObject({ status, code: CODE_OF[status] });
          if (status === 401) expect(response.headers.get('www-authenticate')).toBe('Bearer');
        }
        if (endpoint === 'GET /v1/widget' && status === 200) {
          expect(response.body.viewer.signed_in).toBe(![...STAFF_CALLERS, 'none', 'guest', 'otherSiteSession', 'otherAccountKey'].includes(caller));
          // The bell is a reader session's of this site alone: no key, staff member or other site's session gets a stream key.
          expect(response.body.notifications !== null).toBe(['user', 'otherUser'].includes(caller));
        }
        if ((endpoint === 'GET /v1/sites' || endpoint === 'GET /api/sites') && status === 200) {
          const sees = response.body.sites.some((site: { id: string }) => site.id === world.siteA);
          expect(sees).toBe(!['otherSiteSession', 'otherAccountKey', 'siteModeratorStaff', 'otherAccountStaff'].includes(caller));
        }
        // Tenancy in the account-wide lists: another account's caller sees none of site A's.
        if (endpoint === 'GET /api/keys' && status === 200) {
          const homeKeys = [world.credential.integrationKey, world.credential.moderatorKey, world.adminKey].map((key) => key!.slice(0, 10));
          const sees = response.body.keys.some((key: { prefix: string }) => homeKeys.includes(key.prefix));
          expect(sees).toBe(['adminKey', 'ownerStaff', 'adminStaff'].includes(caller));
        }
        if (endpoint === 'POST /api/comments/moderate' && status === 200) {
          const [result] = response.body.results;
          const outside = ['otherAccountKey', 'siteModeratorStaff', 'otherAccountStaff'].includes(caller);
          expect(outside ? result.error.code : result.ok).toBe(outside ? 'not_found' : true);
        }
        if (status < 400) await verify?.(response);
        check?.(response, endpoint, caller, status, sentAt);
      });
    });
  });
  return () => world;
}
