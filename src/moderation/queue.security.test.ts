import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let home: { account_id: string; site_id: string; api_key: string };
let stranger: { account_id: string; site_id: string; api_key: string };
let homeSecond: string;
let homeComment: string;
let secondComment: string;
let strangerComment: string;
const keys: Record<string, string> = {};

beforeAll(async () => {
  parley = await startParley();
  home = await parley.newSite();
  stranger = await parley.newSite();
  homeSecond = (await parley.request('POST', '/api/sites', { token: home.api_key, body: { name: 'Second' } })).body.id;
  const key = async (role: string, site_ids?: string[]) => (await parley.request('POST', '/api/keys', { token: home.api_key, body: { role, site_ids } })).body.api_key;
  keys.moderator = await key('moderator');
  keys.integration = await key('integration');
  keys.secondOnly = await key('moderator', [homeSecond]);
  keys.session = await parley.signIn(home.api_key, home.site_id, { id: 'mod', name: 'Mod', moderator: true });
  const post = async (token: string, siteId: string) =>
    (await parley.request('POST', '/v1/comments', { token, body: { site_id: siteId, thread_url: pageUrl(), content: 'a comment' } })).body.id as string;
  homeComment = await post(home.api_key, home.site_id);
  secondComment = await post(home.api_key, homeSecond);
  strangerComment = await post(stranger.api_key, stranger.site_id);
});
afterAll(() => parley.close());

const ids = (body: { comments: Array<{ id: string }> }) => body.comments.map((comment) => comment.id);

describe('the management moderation endpoints, by caller', () => {
  it('need a credential (401) with a moderating role: integration keys and sessions, moderators or not, get 403', async () => {
    const endpoints = [
      ['GET', '/api/comments', undefined],
      ['POST', '/api/comments/moderate', { ids: [homeComment], action: 'approve' }],
      ['GET', `/api/comments/${homeComment}/flags`, undefined],
      ['GET', `/api/sites/${home.site_id}/moderation-log`, undefined],
    ] as const;
    for (const [method, path, body] of endpoints) {
      expect((await parley.request(method, path, { body })).status).toBe(401);
      for (const token of [keys.integration, keys.session]) {
        const response = await parley.request(method, path, { token, body });
        expect(response.status, `${method} ${path}`).toBe(403);
        expect(response.body.code).toBe('forbidden');
      }
    }
  });

  it("shows a moderator every site of its account and none of another's", async () => {
    const mine = await parley.request('GET', '/api/comments?limit=100', { token: keys.moderator });
    expect(ids(mine.body)).toEqual(expect.arrayContaining([homeComment, secondComment]));
    expect(ids(mine.body)).not.toContain(strangerComment);
    const theirs = await parley.request('GET', '/api/comments?limit=100', { token: stranger.api_key });
    expect(ids(theirs.body)).toEqual([strangerComment]);
    const searched = await parley.request('GET', '/api/comments?q=comment&limit=100', { token: stranger.api_key });
    expect(ids(searched.body)).toEqual([strangerComment]);
  });

  it("finds nothing of another account's by author name or thread: the same name and page on both accounts find one's own", async () => {
    const thread = `https://example.com/shared-${Date.now()}`;
    const shared = async (target: { site_id: string; api_key: string }) =>
      (await parley.request('POST', '/v1/comments', { token: target.api_key, body: { site_id: target.site_id, thread_url: thread, content: 'shared', author_name: 'Shared Name' } })).body.id;
    const homeShared = await shared(home);
    const strangerShared = await shared(stranger);
    const search = async (token: string, query: string) => ids((await parley.request('GET', `/api/comments?${query}&limit=100`, { token })).body);
    for (const query of ['author=shared+n', `thread=${encodeURIComponent(new URL(thread).pathname)}`, `thread=${encodeURIComponent(thread.replace('https://', ''))}`]) {
      expect(await search(stranger.api_key, query), query).toEqual([strangerShared]);
      expect(await search(keys.moderator, query), query).toEqual([homeShared]);
      expect(await search(keys.secondOnly, query), query).toEqual([]);
    }
    expect((await parley.request('GET', `/api/comments?site_id=${home.site_id}&author=shared`, { token: stranger.api_key })).status).toBe(404);
  });

  it("answers another account's site, or a site outside a key's sites, with 404", async () => {
    expect((await parley.request('GET', `/api/comments?site_id=${home.site_id}`, { token: stranger.api_key })).status).toBe(404);
    expect((await parley.request('GET', `/api/comments?site_id=${home.site_id}`, { token: keys.secondOnly })).status).toBe(404);
    expect(ids((await parley.request('GET', '/api/comments', { token: keys.secondOnly })).body)).toEqual([secondComment]);
    expect((await parley.request('GET', `/api/sites/${home.site_id}/moderation-log`, { token: stranger.api_key })).status).toBe(404);
    expect((await parley.request('GET', `/api/sites/${home.site_id}/moderation-log`, { token: keys.secondOnly })).status).toBe(404);
    expect((await parley.request('GET', `/api/comments/${homeComment}/flags`, { token: stranger.api_key })).status).toBe(404);
    expect((await parley.request('GET', `/api/comments/${homeComment}/flags`, { token: keys.secondOnly })).status).toBe(404);
  });

  it("moderates nothing of another account's in bulk: those ids are not_found, unchanged, and the rest go ahead", async () => {
    const response = await parley.request('POST', '/api/comments/moderate', { token: keys.secondOnly, body: { ids: [strangerComment, homeComment, secondComment], action: 'remove' } });
    expect(response.status).toBe(200);
    expect(response.body.results.map((result: { ok: boolean; error?: { code: string } }) => result.ok || result.error!.code)).toEqual(['not_found', 'not_found', true]);
    const untouched = await parley.request('GET', `/v1/comments/${strangerComment}`);
    expect(untouched.body.status).toBe('published');
    expect((await parley.request('GET', `/v1/comments/${homeComment}`)).body.status).toBe('published');
  });
});
