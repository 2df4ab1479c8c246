import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type TestParley } from '../../test/helper.ts';
import { DEFAULT_SPAM_SETTINGS } from '../spam/settings.ts';

let parley: TestParley;
let site: { account_id: string; site_id: string; api_key: string };

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
});
afterAll(() => parley.close());

describe('sites', () => {
  it('creates a site with defaults and shows it in /v1/sites and /api/sites/:id', async () => {
    const created = await parley.request('POST', '/api/sites', { token: site.api_key, body: { name: 'Blog', domains: ['Blog.Example.com'] } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^site_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      name: 'Blog',
      domains: ['blog.example.com'],
      moderation_mode: 'none',
      allow_guests: true,
      reactions: ['funny', 'interesting', 'insightful'],
      webhook_url: null,
      webhook_secret: null,
      webhook_events: [],
      live_updates: true,
      sso_moderators: false,
      email_sign_in: true,
      provider_avatars: false,
      formatting: 'markdown',
      edit_window_seconds: 900,
      language: null,
      strings: {},
      spam: DEFAULT_SPAM_SETTINGS,
      contact: null,
      created_at: expect.any(String),
    });
    const listed = await parley.request('GET', '/v1/sites', { token: site.api_key });
    expect(listed.body.sites.map((s: any) => s.id)).toEqual([site.site_id, created.body.id]);
    const one = await parley.request('GET', `/api/sites/${created.body.id}`, { token: site.api_key });
    expect(one.body).toEqual(created.body);
  });

  it('changes settings with PATCH and validates them', async () => {
    const patched = await parley.request('PATCH', `/api/sites/${site.site_id}`, {
      token: site.api_key,
      body: { moderation_mode: 'guests', allow_guests: false, name: 'Renamed' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ moderation_mode: 'guests', allow_guests: false, name: 'Renamed' });
    expect((await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { moderation_mode: 'strict' } })).status).toBe(400);
    expect((await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { domains: ['not a host'] } })).status).toBe(400);
    for (const domain of ['localhost:0', 'localhost:70000', 'https://localhost', 'localhost:']) {
      expect((await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { domains: [domain] } })).status, domain).toBe(400);
    }
    const withPort = await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { domains: ['LocalHost:08080'] } });
    expect(withPort.body.domains).toEqual(['localhost:8080']);
    expect((await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { reactions: [] } })).status).toBe(400);
  });

  it("shows a session only its site's public settings in /v1/sites: no webhook, domains or moderation", async () => {
    const configured = await parley.newSite({ domains: ['news.example.com'], moderation: 'all', plan: 'publisher' });
    await parley.app.db.kysely
      .updateTable('sites')
      .set({ webhook_url: 'https://hooks.example.com/in?token=hook-token', webhook_secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=', webhook_events: '["comment.created"]' })
      .where('id', '=', configured.site_id)
      .execute();
    const session = await parley.signIn(configured.api_key, configured.site_id, { id: 'reader', name: 'Reader' });
    const seen = await parley.request('GET', '/v1/sites', { token: session });
    expect(seen.status).toBe(200);
    expect(seen.body).toEqual({ sites: [{ id: configured.site_id, name: expect.any(String), allow_guests: true, reactions: ['funny', 'interesting', 'insightful'], live_updates: true, formatting: 'markdown', edit_window_seconds: 900, language: null, contact: null }] });
    expect(JSON.stringify(seen.body)).not.toMatch(/hook|whsec|news\.example|moderation|domains/);
    const byKey = await parley.request('GET', '/v1/sites', { token: configured.api_key });
    expect(byKey.body.sites[0]).toMatchObject({
      domains: ['news.example.com'],
      moderation_mode: 'all',
      webhook_url: 'https://hooks.example.com/in?token=hook-token',
      webhook_secret: 'whsec_…ZXQ=',
      webhook_events: ['comment.created'],
    });
  });

  it('keeps management to admin keys and tenants to themselves', async () => {
    const moderatorKey = (await parley.request('POST', '/api/keys', { token: site.api_key, body: { role: 'moderator' } })).body.api_key;
    expect((await parley.request('GET', `/api/sites/${site.site_id}`, { token: moderatorKey })).status).toBe(403);
    expect((await parley.request('GET', `/api/sites/${site.site_id}`)).status).toBe(401);
    const other = await parley.newSite();
    expect((await parley.request('GET', `/api/sites/${site.site_id}`, { token: other.api_key })).status).toBe(404);
    expect((await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: other.api_key, body: { name: 'x' } })).status).toBe(404);
    const otherList = await parley.request('GET', '/v1/sites', { token: other.api_key });
    expect(otherList.body.sites.map((s: any) => s.id)).toEqual([other.site_id]);
  });
});
