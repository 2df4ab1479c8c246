import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { account_id: string; site_id: string; api_key: string };

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
});
afterAll(() => parley.close());

async function newUser(id: string, name = id) {
  const response = await parley.request('POST', '/v1/sessions', { token: site.api_key, body: { site_id: site.site_id, user: { id, name } } });
  return { id: response.body.user.id as string, token: response.body.token as string };
}
const post = (token: string, thread = pageUrl(), content = 'hello') =>
  parley.request('POST', '/v1/comments', { token, body: { site_id: site.site_id, thread_url: thread, content } });
const api = (method: string, path: string, body?: unknown) => parley.request(method, `/api/sites/${site.site_id}${path}`, { token: site.api_key, body });

describe('commenters', () => {
  it("shows a user's profile: record by status, recent comments as the queue shows them, bans and notes", async () => {
    const user = await newUser('ada', 'Ada');
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await post(user.token, pageUrl(), `comment ${i}`)).body.id);
    await parley.request('PATCH', `/v1/comments/${ids[0]}/moderate`, { token: site.api_key, body: { action: 'remove' } });
    await parley.request('PATCH', `/v1/comments/${ids[1]}/moderate`, { token: site.api_key, body: { action: 'spam' } });
    const note = await api('POST', `/users/${user.id}/notes`, { body: '  Argues a lot, never rude. ' });
    expect(note.status).toBe(201);
    expect(note.body).toEqual({ id: expect.stringMatching(/^note_/), body: 'Argues a lot, never rude.', created_by: { id: expect.stringMatching(/^key_/), kind: 'key', name: 'bootstrap admin key' }, created_at: expect.any(String) });
    await api('POST', '/bans', { user_id: user.id, ban_type: 'ban', reason: 'cooling off', expires_at: new Date(Date.now() + 3_600_000).toISOString() });

    const profile = await api('GET', `/users/${user.id}`);
    expect(profile.status).toBe(200);
    expect(profile.body).toMatchObject({
      id: user.id,
      external_id: 'ada',
      name: 'Ada',
      avatar_url: null,
      first_comment_at: expect.any(String),
      comments: { published: 10, pending: 0, removed: 1, spam: 1 },
      bans: [{ user_id: user.id, user_name: 'Ada', ban_type: 'ban', reason: 'cooling off', active: true, expires_at: expect.any(String), created_by: { kind: 'key' } }],
      notes: [note.body],
    });
    expect(profile.body.recent_comments.map((comment: { id: string }) => comment.id)).toEqual(ids.slice(2).reverse());
    expect(profile.body.recent_comments[0]).toMatchObject({ author: { id: user.id, kind: 'user' }, thread: { closed: false } });

    const deleted = await api('DELETE', `/users/${user.id}/notes/${note.body.id}`);
    expect(deleted.body).toEqual(note.body);
    expect((await api('GET', `/users/${user.id}`)).body.notes).toEqual([]);
  });

  it("removes all of a user's comments, each as the moderation endpoint would", async () => {
    const user = await newUser('troll');
    const thread = pageUrl();
    for (let i = 0; i < 3; i++) await post(user.token, thread, `troll ${i}`);
    const response = await api('POST', `/users/${user.id}/moderate`, { action: 'remove', reason: 'trolling' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ user_id: user.id, action: 'remove', moderated: 3 });
    const list = await parley.request('GET', `/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent(thread)}`);
    expect(list.body.comments).toEqual([]);
    const log = await api('GET', '/moderation-log?action=remove&limit=3');
    expect(log.body.entries.map((entry: { reason: string }) => entry.reason)).toEqual(['trolling', 'trolling', 'trolling']);
    expect((await api('POST', `/users/${user.id}/moderate`, { action: 'remove' })).body.moderated).toBe(0);
  });
});

describe('bans', () => {
  it('lists bans newest first, filtered by user and by whether they are in force', async () => {
    const [a, b] = [await newUser('list-a'), await newUser('list-b')];
    await api('POST', '/bans', { user_id: a.id });
    await api('POST', '/bans', { user_id: b.id, ban_type: 'shadow_ban' });
    const all = await api('GET', '/bans?limit=2');
    expect(all.body.bans.map((ban: { user_id: string }) => ban.user_id)).toEqual([b.id, a.id]);
    expect((await api('GET', `/bans?user_id=${a.id}`)).body.bans).toHaveLength(1);
    expect((await api('GET', '/bans?active=false')).body.bans).toEqual([]);
  });

  it('a timed ban ends the sessions and refuses writes until it expires, then stops applying, and a new ban may replace it', async () => {
    const before = await newUser('timed');
    const expiresAt = new Date(Date.now() + 1_500).toISOString();
    const ban = await api('POST', '/bans', { user_id: before.id, expires_at: expiresAt });
    expect(ban.status).toBe(201);
    expect(ban.body).toMatchObject({ ban_type: 'ban', expires_at: expiresAt });
    expect((await post(before.token)).status).toBe(401);
    const user = await newUser('timed');
    expect((await post(user.token)).body.code).toBe('banned');
    await new Promise((resolve) => setTimeout(resolve, Date.parse(expiresAt) - Date.now() + 50));
    const written = await post(user.token);
    expect(written.status).toBe(201);
    expect((await parley.request('POST', `/v1/comments/${written.body.id}/vote`, { token: user.token, body: { vote_type: 'up' } })).status).toBe(200);
    expect((await api('GET', `/bans?user_id=${user.id}`)).body.bans[0].active).toBe(false);
    expect((await api('POST', '/bans', { user_id: user.id })).status).toBe(201);
    expect((await post((await newUser('timed')).token)).body.code).toBe('banned');
  });

  it('lifting an outright ban lets the user write again; lifting a shadow ban shows their comments again', async () => {
    const user = await newUser('lifted');
    const thread = pageUrl();
    const id = (await post(user.token, thread, 'visible?')).body.id;
    const shadow = await api('POST', '/bans', { user_id: user.id, ban_type: 'shadow_ban' });
    const outright = await api('POST', '/bans', { user_id: user.id });
    expect((await parley.request('GET', `/v1/comments/${id}`)).status).toBe(404);
    const lifted = await api('DELETE', `/bans/${outright.body.id}`);
    expect(lifted.status).toBe(200);
    expect(lifted.body).toMatchObject({ id: outright.body.id, ban_type: 'ban' });
    // The ban ended the user's session; a new one writes again.
    expect((await post((await newUser('lifted')).token, thread)).status).toBe(201);
    await api('DELETE', `/bans/${shadow.body.id}`);
    expect((await parley.request('GET', `/v1/comments/${id}`)).body.content).toBe('visible?');
    expect((await api('DELETE', `/bans/${shadow.body.id}`)).status).toBe(404);
  });
});
