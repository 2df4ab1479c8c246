import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type TestParley } from '../../../test/helper.ts';

let parley: TestParley;
beforeAll(async () => {
  parley = await startParley();
});
afterAll(async () => parley.close());

describe("the classifier's setting", () => {
  it.each([
    [{ mode: 'always' }, 'body/spam/classifier/mode'],
    [{ threshold: 0.3 }, 'body/spam/classifier/threshold'],
    [{ threshold: 1 }, 'body/spam/classifier/threshold'],
    [{ min_examples: 0 }, 'body/spam/classifier/min_examples'],
    [{ min_examples: 2.5 }, 'body/spam/classifier/min_examples'],
  ])('refuses %j, naming the field, and keeps the setting as it was', async (classifier, path) => {
    const site = await parley.newSite();
    const refused = await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { spam: { classifier } } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ path })] });
    expect((await parley.request('GET', `/api/sites/${site.site_id}/classifier`, { token: site.api_key })).body).toMatchObject({ mode: 'hold_above', threshold: 0.9, min_examples: 20 });
  });

  it('changes one field at a time, keeping the others', async () => {
    const site = await parley.newSite();
    await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { spam: { classifier: { threshold: 0.95 } } } });
    const changed = await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { spam: { classifier: { mode: 'off' } } } });
    expect(changed.body.spam.classifier).toEqual({ mode: 'off', threshold: 0.95, min_examples: 20 });
    expect((await parley.request('GET', `/api/sites/${site.site_id}/classifier`, { token: site.api_key })).body).toMatchObject({ mode: 'off', active: false });
  });
});

describe("GET /api/sites/:id/classifier", () => {
  it('answers 404 problem+json for an unknown site', async () => {
    const site = await parley.newSite();
    const unknown = await parley.request('GET', '/api/sites/site_unknown/classifier', { token: site.api_key });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});
