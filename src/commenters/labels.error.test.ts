import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { site_id: string; api_key: string };
let userId: string;

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
  userId = (await parley.request('POST', '/v1/sessions', { token: site.api_key, body: { site_id: site.site_id, user: { id: 'u', name: 'U' } } })).body.user.id;
});
afterAll(() => parley.close());

const label = (labels: unknown, user = userId) => parley.request('PATCH', `/api/sites/${site.site_id}/users/${user}`, { token: site.api_key, body: { labels } });

describe('labels, refused', () => {
  it.each([
    ['six labels', ['a', 'b', 'c', 'd', 'e', 'f'], 'body/labels'],
    ['a label of 33 characters', ['x'.repeat(33)], 'body/labels/0'],
    ['a label that is only spaces', ['ok', '   '], 'body/labels/1'],
    ['a line break', ['two\nlines'], 'body/labels/0'],
    ['a control character', ['bell\u0007'], 'body/labels/0'],
    ['a direction override', ['evil\u202Eevil'], 'body/labels/0'],
    ['a zero-width space', ['zero\u200Bwidth'], 'body/labels/0'],
    ['the same label twice, whatever the case', ['Author', 'AUTHOR'], 'body/labels/1'],
    ['staff', ['Staff'], 'body/labels/0'],
    ['moderator', ['moderator'], 'body/labels/0'],
    ['verified', [' VERIFIED '], 'body/labels/0'],
    ['a label that is no string', [42], 'body/labels/0'],
  ])('refuses %s with 400', async (_, labels, path) => {
    const refused = await label(labels);
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body.errors.map((error: { path: string }) => error.path)).toContain(path);
    const profile = await parley.request('GET', `/api/sites/${site.site_id}/users/${userId}`, { token: site.api_key });
    expect(profile.body.labels).toEqual([]);
  });

  it('refuses a body without labels with 400, and an unknown user with 404', async () => {
    expect((await parley.request('PATCH', `/api/sites/${site.site_id}/users/${userId}`, { token: site.api_key, body: {} })).status).toBe(400);
    expect((await label(['Author'], 'usr_unknown')).status).toBe(404);
  });
});
