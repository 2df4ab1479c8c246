import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { account_id: string; site_id: string; api_key: string };

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
});
afterAll(() => parley.close());

const newKey = (body: Record<string, unknown>, token = site.api_key) => parley.request('POST', '/api/keys', { token, body });

describe('API keys', () => {
  it('creates a key shown once, limited to sites when asked, with the prefix that recognises it', async () => {
    const created = await newKey({ role: 'integration', name: 'CI bot', site_ids: [site.site_id] });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^key_/),
      api_key: expect.stringMatching(/^sk_[0-9A-Za-z]{32,}$/),
      name: 'CI bot',
      role: 'integration',
      site_ids: [site.site_id],
      prefix: created.body.api_key.slice(0, 10),
      created_at: expect.any(String),
      last_used_at: null,
      revoked_at: null,
    });
    const sites = await parley.request('GET', '/v1/sites', { token: created.body.api_key });
    expect(sites.body.sites.map((s: any) => s.id)).toEqual([site.site_id]);
  });

  it('lists the keys, newest first, with when each was last used and never a secret', async () => {
    const used = await newKey({ role: 'moderator', name: 'mod bot' });
    const unused = await newKey({ role: 'integration', name: 'idle' });
    const before = Date.now();
    expect((await parley.request('GET', '/v1/sites', { token: used.body.api_key })).status).toBe(200);
    const listed = await parley.request('GET', '/api/keys', { token: site.api_key });
    expect(listed.status).toBe(200);
    const [first, second] = listed.body.keys;
    expect([first.id, second.id]).toEqual([unused.body.id, used.body.id]);
    expect(first.last_used_at).toBeNull();
    expect(Date.parse(second.last_used_at)).toBeGreaterThanOrEqual(before - 1);
    expect(second).toMatchObject({ name: 'mod bot', role: 'moderator', site_ids: null, prefix: used.body.prefix, revoked_at: null });
    expect(JSON.stringify(listed.body)).not.toContain(used.body.api_key);
  });

  it('renames a key', async () => {
    const key = await newKey({ role: 'integration', name: 'old name' });
    const renamed = await parley.request('PATCH', `/api/keys/${key.body.id}`, { token: site.api_key, body: { name: '  Nightly import ' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: key.body.id, name: 'Nightly import' });
    const listed = await parley.request('GET', '/api/keys', { token: site.api_key });
    expect(listed.body.keys.find((k: any) => k.id === key.body.id).name).toBe('Nightly import');
  });

  it('revokes a key: it is 401 afterwards, revoking again answers the same, and the list leaves it out unless asked', async () => {
    const created = await newKey({ role: 'integration' });
    const revoked = await parley.request('DELETE', `/api/keys/${created.body.id}`, { token: site.api_key });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toEqual(expect.any(String));
    expect((await parley.request('GET', '/v1/sites', { token: created.body.api_key })).status).toBe(401);
    const again = await parley.request('DELETE', `/api/keys/${created.body.id}`, { token: site.api_key });
    expect(again.body).toEqual(revoked.body);
    const active = await parley.request('GET', '/api/keys', { token: site.api_key });
    expect(active.body.keys.map((k: any) => k.id)).not.toContain(created.body.id);
    const all = await parley.request('GET', '/api/keys?include_revoked=true', { token: site.api_key });
    expect(all.body.keys.map((k: any) => k.id)).toContain(created.body.id);
  });
});
