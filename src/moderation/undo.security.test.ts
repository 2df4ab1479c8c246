import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let home: { account_id: string; site_id: string; api_key: string };
let stranger: { account_id: string; site_id: string; api_key: string };
let homeSecond: string;

beforeAll(async () => {
  parley = await startParley();
  home = await parley.newSite({ moderation: 'all' });
  stranger = await parley.newSite({ moderation: 'all' });
  homeSecond = (await parley.request('POST', '/api/sites', { token: home.api_key, body: { name: 'Second' } })).body.id;
});
afterAll(() => parley.close());

const post = async (target: { site_id: string; api_key: string }) => {
  const author = await parley.signIn(target.api_key, target.site_id, { id: `author-${Math.random()}`, name: 'Author' });
  return (await parley.request('POST', '/v1/comments', { token: author, body: { site_id: target.site_id, thread_url: pageUrl(), content: 'waiting' } })).body.id as string;
};
const undo = (ids: string[], token?: string) => parley.request('POST', '/api/comments/moderate/undo', { token, body: { ids } });
const statusOf = async (id: string, token: string) => (await parley.request('GET', `/api/comments?limit=100`, { token })).body.comments.find((c: { id: string }) => c.id === id)?.status;

describe('undo, by caller', () => {
  it('needs a credential (401) with a moderating role: integration keys and sessions get 403', async () => {
    const id = await post(home);
    expect((await undo([id])).status).toBe(401);
    const integration = (await parley.request('POST', '/api/keys', { token: home.api_key, body: { role: 'integration' } })).body.api_key;
    const session = await parley.signIn(home.api_key, home.site_id, { id: 'mod', name: 'Mod', moderator: true });
    for (const token of [integration, session]) expect((await undo([id], token)).status).toBe(403);
  });

  it("undoes nothing of another account's, nor of a site outside a key's sites: not_found, unchanged", async () => {
    const id = await post(home);
    await parley.request('POST', '/api/comments/moderate', { token: home.api_key, body: { ids: [id], action: 'approve' } });
    const secondOnly = (await parley.request('POST', '/api/keys', { token: home.api_key, body: { role: 'moderator', site_ids: [homeSecond] } })).body.api_key;
    for (const token of [stranger.api_key, secondOnly]) {
      const response = await undo([id], token);
      expect(response.status).toBe(200);
      expect(response.body.results[0]).toMatchObject({ id, ok: false, error: { code: 'not_found' } });
    }
    expect(await statusOf(id, home.api_key)).toBe('published');
    // Nor can a key of the same account undo the action of the key that made it.
    const colleague = (await parley.request('POST', '/api/keys', { token: home.api_key, body: { role: 'moderator' } })).body.api_key;
    expect((await undo([id], colleague)).body.results[0]).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(await statusOf(id, home.api_key)).toBe('published');
  });

  it("leaves a stranger's own comments to the stranger", async () => {
    const theirs = await post(stranger);
    await parley.request('POST', '/api/comments/moderate', { token: stranger.api_key, body: { ids: [theirs], action: 'spam' } });
    expect((await undo([theirs], home.api_key)).body.results[0]).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect((await undo([theirs], stranger.api_key)).body.results[0]).toMatchObject({ ok: true, result: { status: 'pending' } });
  });
});
