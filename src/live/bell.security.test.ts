import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { SseClient } from '../../test/sse-client.ts';

let parley: TestParley;
let site: { site_id: string; api_key: string };
let stranger: { site_id: string; api_key: string };

beforeAll(async () => {
  parley = await startParley({ PARLEY_LIVE_HEARTBEAT: '200ms' });
  site = await parley.newSite();
  stranger = await parley.newSite();
});

afterAll(async () => {
  await parley.close();
});

/** A reader signed in to a site: their session token, session id, and the stream key GET /v1/widget gives them. */
async function signedIn(on = site) {
  const session = await parley.request('POST', '/v1/sessions', { token: on.api_key, body: { site_id: on.site_id, user: { id: `reader-${randomBytes(4).toString('hex')}`, name: 'Rita' } } });
  expect(session.status).toBe(201);
  const token = session.body.token as string;
  const key = (await parley.request('GET', `/v1/widget?site_id=${on.site_id}`, { token })).body.notifications.stream_key as string;
  return { token, userId: session.body.user.id as string, key };
}

const bellUrl = (key: string, siteId = site.site_id) =>
  `${parley.url}/v1/comments/stream?site_id=${siteId}&thread_url=${encodeURIComponent(pageUrl())}&notifications_key=${encodeURIComponent(key)}`;

async function refused(url: string, status: number, code: string) {
  const client = await SseClient.open(url);
  expect(client.status).toBe(status);
  expect(client.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(client.messages[0].data).toMatchObject({ status, code });
  return client;
}

describe('GET /v1/comments/stream?notifications_key, refused', () => {
  it('is no credential: it holds nothing of the session token and signs no request in', async () => {
    const rita = await signedIn();
    expect(rita.key).not.toContain(rita.token.slice(5));
    const sameSession = (await parley.request('GET', `/v1/widget?site_id=${site.site_id}`, { token: rita.token })).body.notifications.stream_key;
    expect(sameSession).toBe(rita.key);
    expect((await parley.request('GET', '/v1/widget', { token: rita.key })).status).toBe(401);
  });

  it('is 401 before streaming for a forged key, another session\'s signature, or another site\'s session', async () => {
    const rita = await signedIn();
    const bob = await signedIn();
    const theirs = await signedIn(stranger);
    const [ritaSession, ritaSignature] = rita.key.split('.');
    const forged = `${ritaSession}.${ritaSignature.startsWith('A') ? 'B' : 'A'}${ritaSignature.slice(1)}`;
    for (const key of [forged, `${bob.key.split('.')[0]}.${ritaSignature}`, theirs.key]) {
      const client = await refused(bellUrl(key), 401, 'unauthorized');
      expect(client.headers.get('www-authenticate')).toBe('Bearer');
    }
    // On its own site the stranger's key works.
    const own = await SseClient.open(bellUrl(theirs.key, stranger.site_id));
    expect(own.status).toBe(200);
    own.close();
    for (const key of [rita.token, 'sess_x.y', `${rita.key}=`]) await refused(bellUrl(key), 400, 'validation_failed');
  });

  it('is 401 for the key of a session signed out or expired', async () => {
    const signedOut = await signedIn();
    expect((await parley.request('DELETE', '/v1/sessions/current', { token: signedOut.token })).status).toBe(204);
    await refused(bellUrl(signedOut.key), 401, 'unauthorized');
    const expired = await signedIn();
    await parley.app.db.kysely.updateTable('sessions').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', expired.key.split('.')[0]).execute();
    await refused(bellUrl(expired.key), 401, 'unauthorized');
  });
});

describe('GET /v1/comments/stream?notifications_key, a session ending while it streams', () => {
  it('closes within a heartbeat when the reader signs out or the site ends their sessions; the key is then refused', async () => {
    const [signsOut, ended, stays] = [await signedIn(), await signedIn(), await signedIn()];
    const streams = await Promise.all([signsOut, ended, stays].map(async ({ key }) => {
      const client = await SseClient.open(bellUrl(key));
      expect(client.status).toBe(200);
      await client.until((c) => c.of('notifications').length === 1);
      return client;
    }));
    expect((await parley.request('DELETE', '/v1/sessions/current', { token: signsOut.token })).status).toBe(204);
    expect((await parley.request('DELETE', `/api/sites/${site.site_id}/sessions?user_id=${encodeURIComponent(ended.userId)}`, { token: site.api_key })).body.revoked).toBe(1);
    await streams[0].until((c) => c.ended, 2000);
    await streams[1].until((c) => c.ended, 2000);
    // The other reader's bell goes on, heartbeat after heartbeat.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(streams[2].ended).toBe(false);
    for (const { key } of [signsOut, ended]) await refused(bellUrl(key), 401, 'unauthorized');
    streams[2].close();
  });
});
