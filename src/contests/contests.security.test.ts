import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let home: { account_id: string; site_id: string; api_key: string };
let stranger: { account_id: string; site_id: string; api_key: string };
let secondSite: string;
let author: string;

beforeAll(async () => {
  parley = await startParley();
  home = await parley.newSite();
  stranger = await parley.newSite();
  secondSite = (await parley.request('POST', '/api/sites', { token: home.api_key, body: { name: 'Second' } })).body.id;
  author = await parley.signIn(home.api_key, home.site_id, { id: 'author', name: 'Author' });
});
afterAll(() => parley.close());

const key = async (role: string, site_ids?: string[]) => (await parley.request('POST', '/api/keys', { token: home.api_key, body: { role, site_ids } })).body.api_key as string;
const postAs = async (token: string, action?: string) => {
  const id = (await parley.request('POST', '/v1/comments', { token, body: { site_id: home.site_id, thread_url: pageUrl(), content: 'mine' } })).body.id as string;
  if (action) await parley.request('PATCH', `/v1/comments/${id}/moderate`, { token: home.api_key, body: { action } });
  return id;
};
const contest = (id: string, token?: string) => parley.request('POST', `/v1/comments/${id}/contest`, { token, body: { message: 'look again' } });

describe('who may contest', () => {
  it("needs a credential (401); an API key is not a reader (403), not even the site's admin key", async () => {
    const id = await postAs(author, 'remove');
    expect((await contest(id)).status).toBe(401);
    expect((await contest(id, 'sess_unknown')).status).toBe(401);
    for (const token of [home.api_key, await key('integration'), await key('moderator')]) expect((await contest(id, token)).body).toMatchObject({ status: 403, code: 'forbidden' });
  });

  it("another reader: 404 for a removed comment they cannot see, 403 for a held one of theirs they can't contest; a moderator's session is not its author (403)", async () => {
    const id = await postAs(author, 'remove');
    const other = await parley.signIn(home.api_key, home.site_id, { id: 'other', name: 'Other' });
    expect((await contest(id, other)).body).toMatchObject({ status: 404, code: 'not_found' });
    const moderator = await parley.signIn(home.api_key, home.site_id, { id: 'mod', name: 'Mo', moderator: true });
    expect((await contest(id, moderator)).body).toMatchObject({ status: 403, code: 'forbidden' });
    const stranger_ = await parley.signIn(stranger.api_key, stranger.site_id, { id: 'author', name: 'Author' });
    expect((await contest(id, stranger_)).body).toMatchObject({ status: 404, code: 'not_found' });
    // Nothing was opened by any of them.
    expect((await contest(id, author)).status).toBe(201);
  });

  it('a revoked session: 401', async () => {
    const token = await parley.signIn(home.api_key, home.site_id, { id: 'leaving', name: 'Leaving' });
    const id = await postAs(token, 'spam');
    await parley.request('DELETE', '/v1/sessions/current', { token });
    expect((await contest(id, token)).status).toBe(401);
  });
});

describe('who may see and answer contests', () => {
  it("a reader's session and an integration key: 403 before any lookup", async () => {
    const contested = (await contest(await postAs(author, 'remove'), author)).body.id;
    for (const token of [author, await key('integration')]) {
      expect((await parley.request('GET', '/api/contests', { token })).status).toBe(403);
      expect((await parley.request('POST', `/api/contests/${contested}/resolve`, { token, body: { outcome: 'reversed' } })).status).toBe(403);
    }
  });

  it("another account, and a key limited to another site, never see the site's contests (404) and change nothing", async () => {
    const id = await postAs(author, 'remove');
    const contested = (await contest(id, author)).body.id;
    for (const token of [stranger.api_key, await key('moderator', [secondSite])]) {
      expect((await parley.request('POST', `/api/contests/${contested}/resolve`, { token, body: { outcome: 'reversed' } })).body).toMatchObject({ status: 404, code: 'not_found' });
      expect((await parley.request('GET', `/api/contests?site_id=${home.site_id}`, { token })).status).toBe(404);
      const theirs = await parley.request('GET', '/api/contests', { token });
      expect(theirs.status).toBe(200);
      expect(theirs.body.contests.some((c: { id: string }) => c.id === contested)).toBe(false);
    }
    const open = await parley.request('GET', `/api/contests?site_id=${home.site_id}&limit=100`, { token: home.api_key });
    expect(open.body.contests.find((c: { id: string }) => c.id === contested)).toMatchObject({ state: 'open', comment: { status: 'removed' } });
  });

  it('a moderator key of the site answers', async () => {
    const contested = (await contest(await postAs(author, 'remove'), author)).body.id;
    const response = await parley.request('POST', `/api/contests/${contested}/resolve`, { token: await key('moderator'), body: { outcome: 'reversed' } });
    expect(response).toMatchObject({ status: 200, body: { outcome: 'reversed', comment: { status: 'published' } } });
  });
});

describe('the site contact', () => {
  it("is changed by the site's administrators only; a session sees it in GET /v1/sites", async () => {
    const moderator = await key('moderator');
    expect((await parley.request('PATCH', `/api/sites/${home.site_id}`, { token: moderator, body: { contact: 'https://example.com/a' } })).status).toBe(403);
    expect((await parley.request('PATCH', `/api/sites/${home.site_id}`, { token: stranger.api_key, body: { contact: 'https://example.com/a' } })).status).toBe(404);
    await parley.request('PATCH', `/api/sites/${home.site_id}`, { token: home.api_key, body: { contact: 'help@example.com' } });
    const seen = await parley.request('GET', '/v1/sites', { token: author });
    expect(seen.body.sites[0].contact).toBe('mailto:help@example.com');
  });
});
