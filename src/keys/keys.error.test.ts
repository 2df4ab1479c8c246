import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { account_id: string; site_id: string; api_key: string };

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
});
afterAll(() => parley.close());

const newKey = (body: Record<string, unknown>) => parley.request('POST', '/api/keys', { token: site.api_key, body });

describe('API keys, refused', () => {
  it('refuses keys for sites of other accounts and unknown roles with 400', async () => {
    const other = await parley.newSite();
    expect((await newKey({ role: 'integration', site_ids: [other.site_id] })).status).toBe(400);
    expect((await newKey({ role: 'owner' })).status).toBe(400);
  });

  it('refuses an empty or over-long name, or one with control characters, with 400 naming the field', async () => {
    const key = await newKey({ role: 'integration' });
    for (const name of ['', '   ', 'x'.repeat(101), 'a\u0007b']) {
      const renamed = await parley.request('PATCH', `/api/keys/${key.body.id}`, { token: site.api_key, body: { name } });
      expect(renamed.status).toBe(400);
      expect(renamed.body.errors[0].path).toBe('body/name');
    }
  });

  it('will not rename a revoked key (409)', async () => {
    const key = await newKey({ role: 'integration' });
    await parley.request('DELETE', `/api/keys/${key.body.id}`, { token: site.api_key });
    const renamed = await parley.request('PATCH', `/api/keys/${key.body.id}`, { token: site.api_key, body: { name: 'again' } });
    expect(renamed.status).toBe(409);
    expect(renamed.body.code).toBe('conflict');
  });

  it('answers an unknown key with 404', async () => {
    expect((await parley.request('PATCH', '/api/keys/key_unknown', { token: site.api_key, body: { name: 'x' } })).status).toBe(404);
    expect((await parley.request('DELETE', '/api/keys/key_unknown', { token: site.api_key })).status).toBe(404);
  });

  it('refuses an account the caller does not administer by id', async () => {
    const other = await parley.newSite();
    const created = await newKey({ role: 'integration', account_id: other.account_id });
    expect(created.status).toBe(404);
  });
});
