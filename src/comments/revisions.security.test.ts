import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { addStaff, signInStaff } from '../../test/staff.ts';

let parley: TestParley;
let home: { account_id: string; site_id: string; api_key: string };
let edited: string;
const keys: Record<string, string> = {};

beforeAll(async () => {
  parley = await startParley();
  home = await parley.newSite();
  const stranger = await parley.newSite();
  const second = (await parley.request('POST', '/api/sites', { token: home.api_key, body: { name: 'Second' } })).body.id;
  const key = async (role: string, site_ids?: string[]) => (await parley.request('POST', '/api/keys', { token: home.api_key, body: { role, site_ids } })).body.api_key;
  keys.moderator = await key('moderator');
  keys.integration = await key('integration');
  keys.secondOnly = await key('moderator', [second]);
  keys.stranger = stranger.api_key;
  keys.reader = await parley.signIn(home.api_key, home.site_id, { id: 'reader', name: 'Reader' });
  keys.moderatorSession = await parley.signIn(home.api_key, home.site_id, { id: 'mod', name: 'Mod', moderator: true });
  edited = (await parley.request('POST', '/v1/comments', { token: keys.reader, body: { site_id: home.site_id, thread_url: pageUrl(), content: 'secret first words' } })).body.id;
  expect((await parley.request('PATCH', `/v1/comments/${edited}`, { token: keys.reader, body: { content: 'better words' } })).status).toBe(200);
});
afterAll(() => parley.close());

const read = (token?: string, headers?: Record<string, string>) => parley.request('GET', `/api/comments/${edited}/revisions`, { token, headers });

describe("who reads a comment's earlier versions", () => {
  it("the site's moderators: its moderator and admin keys, and staff with a moderating role", async () => {
    for (const token of [home.api_key, keys.moderator]) expect((await read(token)).body.revisions.map((r: { content: string }) => r.content)).toEqual(['secret first words']);
    const staff = await signInStaff(parley, (await addStaff(parley, home.account_id, 'moderator')).email);
    expect((await read(undefined, staff.headers)).status).toBe(200);
  });

  it('nobody without a moderating role: 401 without a credential, 403 for an integration key and for sessions, the author and moderators alike (as every /api/ read)', async () => {
    expect((await read()).status).toBe(401);
    for (const token of [keys.integration, keys.reader, keys.moderatorSession]) {
      const refused = await read(token);
      expect(refused.status).toBe(403);
      expect(JSON.stringify(refused.body)).not.toContain('secret');
    }
  });

  it("another account's credential, or a key of the account's other site, finds no such comment (404)", async () => {
    for (const token of [keys.stranger, keys.secondOnly]) {
      const refused = await read(token);
      expect(refused.status).toBe(404);
      expect(refused.body.code).toBe('not_found');
    }
    expect((await parley.request('GET', '/api/comments/cmt_nosuchcomment/revisions', { token: home.api_key })).status).toBe(404);
  });
});
