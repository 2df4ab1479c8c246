import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let account: { account_id: string; site_id: string; api_key: string };

beforeAll(async () => {
  parley = await startParley();
  account = await parley.newSite({ plan: 'publisher' });
});
afterAll(() => parley.close());

const newSite = async (name: string) => (await parley.request('POST', '/api/sites', { token: account.api_key, body: { name } })).body.id as string;
const remove = (siteId: string, confirm: unknown, token = account.api_key) => parley.request('DELETE', `/api/sites/${siteId}`, { token, body: { confirm } });

/** A site with a thread, replies, votes, reactions, flags, a ban, a note, moderation, a webhook delivery, a follow and notifications. */
async function populated(name: string) {
  const siteId = await newSite(name);
  const user = (await parley.request('POST', '/v1/sessions', { token: account.api_key, body: { site_id: siteId, user: { id: 'u', name: 'U' } } })).body;
  const thread = pageUrl();
  const root = (await parley.request('POST', '/v1/comments', { token: user.token, body: { site_id: siteId, thread_url: thread, content: 'root' } })).body.id;
  await parley.request('POST', '/v1/follows', { token: user.token, body: { site_id: siteId, thread_url: thread } });
  const reply = (await parley.request('POST', '/v1/comments', { token: account.api_key, body: { site_id: siteId, thread_url: thread, content: 'reply', parent_id: root } })).body.id;
  await parley.request('POST', `/v1/comments/${root}/vote`, { token: account.api_key, body: { vote_type: 'up' } });
  await parley.request('POST', `/v1/comments/${root}/react`, { token: account.api_key, body: { reaction_type: 'funny' } });
  await parley.request('POST', `/v1/comments/${reply}/flag`, { body: { reason: 'x' } });
  await parley.request('PATCH', `/v1/comments/${reply}/moderate`, { token: account.api_key, body: { action: 'remove' } });
  await parley.request('POST', `/api/sites/${siteId}/users/${user.user.id}/notes`, { token: account.api_key, body: { body: 'a note' } });
  await parley.request('POST', `/api/sites/${siteId}/bans`, { token: account.api_key, body: { user_id: user.user.id } });
  await parley.request('POST', `/api/sites/${siteId}/webhooks/test`, { token: account.api_key, body: {} });
  await parley.request('GET', `/api/sites/${siteId}/stats`, { token: account.api_key });
  return { siteId, root, session: user.token as string };
}

describe('deleting a site', () => {
  it('deletes it with everything of it in one go, once confirmed by name or id, and keeps the other sites', async () => {
    const kept = await populated('Kept');
    const gone = await populated('Gone');
    const limitedToGone = (await parley.request('POST', '/api/keys', { token: account.api_key, body: { role: 'moderator', site_ids: [gone.siteId] } })).body;
    const limitedToBoth = (await parley.request('POST', '/api/keys', { token: account.api_key, body: { role: 'moderator', site_ids: [gone.siteId, kept.siteId] } })).body;

    const deleted = await remove(gone.siteId, 'Gone');
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: gone.siteId, deleted: true, comments: 2 });
    expect((await parley.request('GET', `/api/sites/${gone.siteId}`, { token: account.api_key })).status).toBe(404);
    expect((await parley.request('GET', `/v1/comments/${gone.root}`)).status).toBe(404);
    expect((await parley.request('GET', '/v1/sites', { token: gone.session })).status).toBe(401);
    // A key limited to that site alone is revoked; one limited to more keeps the others.
    expect((await parley.request('GET', '/v1/sites', { token: limitedToGone.api_key })).status).toBe(401);
    const both = await parley.request('GET', '/v1/sites', { token: limitedToBoth.api_key });
    expect(both.body.sites.map((site: { id: string }) => site.id)).toEqual([kept.siteId]);
    const { kysely, spamSignals } = parley.app.db;
    // Nor are the spam checks' signals of its comments written afterwards.
    await spamSignals.flush();
    for (const table of ['comments', 'threads', 'site_users', 'sessions', 'bans', 'moderation_log', 'commenter_notes', 'author_counts', 'site_daily_counts', 'thread_queue_counts', 'webhook_deliveries', 'events', 'spam_signals', 'follows', 'notifications', 'notification_jobs', 'decision_contests', 'site_alerts'] as const) {
      expect(await kysely.selectFrom(table).select('site_id').where('site_id', '=', gone.siteId).execute(), table).toEqual([]);
    }
    expect((await parley.request('GET', `/v1/comments/${kept.root}`)).status).toBe(200);
    expect((await remove(kept.siteId, kept.siteId)).status).toBe(200);
  });

  it('refuses without the confirmation, or with another name, and deletes nothing', async () => {
    const siteId = await newSite('Careful');
    for (const confirm of ['careful', 'Other', '']) {
      const response = await remove(siteId, confirm);
      expect(response.status).toBe(400);
      expect(response.body.errors[0].path).toBe('body/confirm');
    }
    expect((await parley.request('DELETE', `/api/sites/${siteId}`, { token: account.api_key })).status).toBe(400);
    expect((await parley.request('GET', `/api/sites/${siteId}`, { token: account.api_key })).status).toBe(200);
  });

  it('needs an admin of the site: moderators 403, other accounts and keys limited to other sites 404', async () => {
    const siteId = await newSite('Guarded');
    const other = await parley.newSite();
    const moderator = (await parley.request('POST', '/api/keys', { token: account.api_key, body: { role: 'moderator' } })).body.api_key;
    const elsewhere = (await parley.request('POST', '/api/keys', { token: account.api_key, body: { role: 'admin', site_ids: [account.site_id] } })).body.api_key;
    expect((await remove(siteId, 'Guarded', moderator)).status).toBe(403);
    expect((await remove(siteId, 'Guarded', other.api_key)).status).toBe(404);
    expect((await remove(siteId, 'Guarded', elsewhere)).status).toBe(404);
    expect((await parley.request('DELETE', `/api/sites/${siteId}`, { body: { confirm: 'Guarded' } })).status).toBe(401);
  });
});

describe('listing sites for management', () => {
  it('lists the sites the caller moderates: every site of its account, or those of a limited key', async () => {
    const second = await newSite('Listed');
    const limited = (await parley.request('POST', '/api/keys', { token: account.api_key, body: { role: 'moderator', site_ids: [second] } })).body.api_key;
    const all = await parley.request('GET', '/api/sites', { token: account.api_key });
    expect(all.body.sites.map((site: { id: string }) => site.id)).toEqual(expect.arrayContaining([account.site_id, second]));
    expect((await parley.request('GET', '/api/sites', { token: limited })).body.sites.map((site: { id: string }) => site.id)).toEqual([second]);
    const other = await parley.newSite();
    expect((await parley.request('GET', '/api/sites', { token: other.api_key })).body.sites.map((site: { id: string }) => site.id)).toEqual([other.site_id]);
    const integration = (await parley.request('POST', '/api/keys', { token: account.api_key, body: { role: 'integration' } })).body.api_key;
    expect((await parley.request('GET', '/api/sites', { token: integration })).status).toBe(403);
  });
});
