import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { account_id: string; site_id: string; api_key: string };
let second: string;

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
  second = (await parley.request('POST', '/api/sites', { token: site.api_key, body: { name: 'Second' } })).body.id;
});
afterAll(() => parley.close());

const newKey = (body: Record<string, unknown>, token = site.api_key) => parley.request('POST', '/api/keys', { token, body });

describe('API keys, by caller', () => {
  it('keeps keys to admins: moderator and integration keys and sessions get 403, no credential 401', async () => {
    const target = await newKey({ role: 'integration' });
    const moderator = (await newKey({ role: 'moderator' })).body.api_key;
    const integration = (await newKey({ role: 'integration' })).body.api_key;
    const session = await parley.signIn(site.api_key, site.site_id, { id: 'reader', name: 'Reader', moderator: true });
    for (const token of [moderator, integration, session]) {
      expect((await parley.request('GET', '/api/keys', { token })).status).toBe(403);
      expect((await newKey({ role: 'integration' }, token)).status).toBe(403);
      expect((await parley.request('PATCH', `/api/keys/${target.body.id}`, { token, body: { name: 'x' } })).status).toBe(403);
      expect((await parley.request('DELETE', `/api/keys/${target.body.id}`, { token })).status).toBe(403);
    }
    expect((await parley.request('GET', '/api/keys')).status).toBe(401);
  });

  it("never shows or touches another account's keys: 404, and its list leaves them out", async () => {
    const other = await parley.newSite();
    const mine = await newKey({ role: 'integration' });
    expect((await parley.request('PATCH', `/api/keys/${mine.body.id}`, { token: other.api_key, body: { name: 'stolen' } })).status).toBe(404);
    expect((await parley.request('DELETE', `/api/keys/${mine.body.id}`, { token: other.api_key })).status).toBe(404);
    const theirs = await parley.request('GET', '/api/keys', { token: other.api_key });
    expect(theirs.body.keys.map((k: any) => k.id)).not.toContain(mine.body.id);
    expect(JSON.stringify(theirs.body)).not.toContain(site.account_id);
    expect((await parley.request('GET', '/v1/sites', { token: mine.body.api_key })).status).toBe(200);
  });

  it('lets an admin key limited to one site see and manage only keys within that site', async () => {
    const limited = (await newKey({ role: 'admin', site_ids: [second] })).body.api_key;
    const inside = await newKey({ role: 'integration', site_ids: [second] });
    const everywhere = await newKey({ role: 'integration' });
    const listed = await parley.request('GET', '/api/keys', { token: limited });
    const ids = listed.body.keys.map((k: any) => k.id);
    expect(ids).toContain(inside.body.id);
    expect(ids).not.toContain(everywhere.body.id);
    expect((await parley.request('DELETE', `/api/keys/${everywhere.body.id}`, { token: limited })).status).toBe(404);
    expect((await parley.request('PATCH', `/api/keys/${inside.body.id}`, { token: limited, body: { name: 'mine' } })).status).toBe(200);
    expect((await newKey({ role: 'integration' }, limited)).status).toBe(403);
    expect((await newKey({ role: 'integration', site_ids: [site.site_id] }, limited)).status).toBe(403);
    expect((await newKey({ role: 'integration', site_ids: [second] }, limited)).status).toBe(201);
  });
});
