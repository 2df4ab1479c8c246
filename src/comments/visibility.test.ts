import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { site_id: string; api_key: string };
let alice: string;
let bob: string;
let moderator: string;

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
  alice = await parley.signIn(site.api_key, site.site_id, { id: 'alice', name: 'Alice' });
  bob = await parley.signIn(site.api_key, site.site_id, { id: 'bob', name: 'Bob' });
  moderator = await parley.signIn(site.api_key, site.site_id, { id: 'mod', name: 'Mo', moderator: true });
});
afterAll(() => parley.close());

async function post(token: string | undefined, thread: string, content: string, parent_id?: string) {
  const response = await parley.request('POST', '/v1/comments', { token, body: { thread_url: thread, site_id: site.site_id, content, parent_id } });
  expect(response.status).toBe(201);
  return response.body;
}

const moderate = (id: string, action: string) =>
  parley.request('PATCH', `/v1/comments/${id}/moderate`, { token: moderator, body: { action } });

async function contents(thread: string, token?: string): Promise<unknown> {
  const response = await parley.request('GET', `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${site.site_id}&sort=oldest`, { token });
  expect(response.status).toBe(200);
  const walk = (comments: any[]): unknown[] => comments.map((c) => (c.replies.length ? [c.content, walk(c.replies)] : c.content));
  return { total: response.body.total, tree: walk(response.body.comments) };
}

describe('who sees what', () => {
  it('shows pending comments only to their author and moderators', async () => {
    const premod = await parley.newSite({ moderation: 'all' });
    const author = await parley.signIn(premod.api_key, premod.site_id, { id: 'a', name: 'A' });
    const thread = pageUrl();
    const created = await parley.request('POST', '/v1/comments', { token: author, body: { thread_url: thread, site_id: premod.site_id, content: 'waiting' } });
    expect(created.body).toMatchObject({ status: 'pending', moderation_status: 'pending' });
    const list = (token?: string) => parley.request('GET', `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${premod.site_id}`, { token });
    expect((await list()).body.total).toBe(0);
    expect((await list(author)).body.comments.map((c: any) => c.content)).toEqual(['waiting']);
    expect((await list(premod.api_key)).body.total).toBe(1);
    expect((await parley.request('GET', `/v1/comments/${created.body.id}`)).status).toBe(404);
  });

  it("shows a reader their comments the public does not see through every moderation of them, each in its own thread", async () => {
    const premod = await parley.newSite({ moderation: 'all' });
    const dana = await parley.signIn(premod.api_key, premod.site_id, { id: 'dana', name: 'Dana' });
    const mo = await parley.signIn(premod.api_key, premod.site_id, { id: 'mo', name: 'Mo', moderator: true });
    const [thread, elsewhere] = [pageUrl(), pageUrl()];
    const write = async (where: string, content: string) =>
      (await parley.request('POST', '/v1/comments', { token: dana, body: { thread_url: where, site_id: premod.site_id, content } })).body.id as string;
    const moderatePremod = async (id: string, action: string) =>
      expect((await parley.request('PATCH', `/v1/comments/${id}/moderate`, { token: mo, body: { action } })).status).toBe(200);
    const seen = async (where: string, token?: string) => {
      const list = await parley.request('GET', `/v1/comments?thread_url=${encodeURIComponent(where)}&site_id=${premod.site_id}&sort=oldest`, { token });
      return list.body.comments.map((comment: { content: string }) => comment.content);
    };
    const first = await write(thread, 'first');
    const second = await write(thread, 'second');
    const third = await write(elsewhere, 'elsewhere');
    expect(await seen(thread, dana)).toEqual(['first', 'second']);

    await moderatePremod(first, 'approve');
    expect(await seen(thread)).toEqual(['first']);
    expect(await seen(thread, dana)).toEqual(['first', 'second']);
    await moderatePremod(second, 'remove');
    expect(await seen(thread, dana)).toEqual(['first']);
    await moderatePremod(first, 'shadow_ban');
    expect(await seen(thread)).toEqual([]);
    expect(await seen(thread, dana)).toEqual(['first']);
    await moderatePremod(first, 'unhide');
    expect(await seen(thread, dana)).toEqual(['first']);

    expect(await seen(elsewhere, dana)).toEqual(['elsewhere']);
    await moderatePremod(third, 'spam');
    expect(await seen(elsewhere, dana)).toEqual([]);
    const fourth = await write(elsewhere, 'again');
    expect(await seen(elsewhere, dana)).toEqual(['again']);
    expect(await seen(elsewhere)).toEqual([]);
    await moderatePremod(fourth, 'approve');
    expect(await seen(elsewhere)).toEqual(['again']);
    expect(await seen(elsewhere, dana)).toEqual(['again']);
  });

  it('hides a removed comment and its replies from the public, not from moderators', async () => {
    const thread = pageUrl();
    const root = await post(alice, thread, 'root');
    await post(bob, thread, 'reply', root.id);
    expect((await moderate(root.id, 'remove')).status).toBe(200);
    expect(await contents(thread)).toEqual({ total: 0, tree: [] });
    expect(await contents(thread, alice)).toEqual({ total: 0, tree: [] });
    expect(await contents(thread, moderator)).toEqual({ total: 1, tree: [['root', ['reply']]] });
  });

  it('hides replies below a spam reply', async () => {
    const thread = pageUrl();
    const root = await post(alice, thread, 'root');
    const spam = await post(bob, thread, 'buy now', root.id);
    const below = await post(alice, thread, 'below spam', spam.id);
    await moderate(spam.id, 'spam');
    expect(await contents(thread)).toEqual({ total: 1, tree: ['root'] });
    expect((await parley.request('GET', `/v1/comments/${below.id}`)).status).toBe(404);
  });

  it('shows a shadow-banned author their comments, past and future, and nobody else', async () => {
    const thread = pageUrl();
    const carol = await parley.signIn(site.api_key, site.site_id, { id: 'carol', name: 'Carol' });
    const before = await post(carol, thread, 'before the ban');
    await post(carol, pageUrl(), 'elsewhere before the ban');
    const banned = await moderate(before.id, 'shadow_ban');
    expect(banned.body).toMatchObject({ action: 'shadow_ban', moderation_status: 'shadow_banned', status: 'published' });
    const after = await post(carol, thread, 'after the ban');
    expect(after.moderation_status).toBe('shadow_banned');
    expect(await contents(thread)).toEqual({ total: 0, tree: [] });
    expect(await contents(thread, bob)).toEqual({ total: 0, tree: [] });
    expect(await contents(thread, carol)).toEqual({ total: 2, tree: ['before the ban', 'after the ban'] });
    expect(await contents(thread, moderator)).toEqual({ total: 2, tree: ['before the ban', 'after the ban'] });

    await moderate(before.id, 'unhide');
    expect(await contents(thread)).toEqual({ total: 2, tree: ['before the ban', 'after the ban'] });
  });

  it('keeps a deleted comment as a placeholder while it has replies, and drops it without', async () => {
    const thread = pageUrl();
    const root = await post(alice, thread, 'root');
    const reply = await post(bob, thread, 'reply', root.id);
    const lonely = await post(alice, thread, 'lonely');
    await parley.request('DELETE', `/v1/comments/${root.id}`, { token: alice });
    await parley.request('DELETE', `/v1/comments/${lonely.id}`, { token: alice });
    const list = await parley.request('GET', `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${site.site_id}`);
    expect(list.body.total).toBe(1);
    expect(list.body.comments[0]).toMatchObject({ id: root.id, content: null, is_deleted: true });
    expect(list.body.comments[0].replies[0].id).toBe(reply.id);

    await parley.request('DELETE', `/v1/comments/${reply.id}`, { token: bob });
    expect(await contents(thread)).toEqual({ total: 0, tree: [] });
  });

  it('drops a deleted comment whose only live replies sit under a removed one, from the page and from total', async () => {
    const thread = pageUrl();
    const root = await post(alice, thread, 'root');
    const removed = await post(bob, thread, 'to be removed', root.id);
    await post(alice, thread, 'live, under the removed reply', removed.id);
    await post(bob, thread, 'another thread root');
    await moderate(removed.id, 'remove');
    await parley.request('DELETE', `/v1/comments/${root.id}`, { token: alice });
    expect(await contents(thread)).toEqual({ total: 1, tree: ['another thread root'] });
    expect(await contents(thread, moderator)).toEqual({ total: 2, tree: [[null, [['to be removed', ['live, under the removed reply']]]], 'another thread root'] });

    await moderate(removed.id, 'approve');
    expect(await contents(thread)).toEqual({ total: 2, tree: [[null, [['to be removed', ['live, under the removed reply']]]], 'another thread root'] });
  });

  it("reads another account's site as the public does", async () => {
    const thread = pageUrl();
    await post(alice, thread, 'visible');
    const pending = await parley.newSite({ moderation: 'all' });
    const premodThread = pageUrl();
    const guest = await parley.request('POST', '/v1/comments', { body: { thread_url: premodThread, site_id: pending.site_id, content: 'guest pending' } });
    expect(guest.body.status).toBe('pending');
    const asOtherTenant = await parley.request('GET', `/v1/comments?thread_url=${encodeURIComponent(premodThread)}&site_id=${pending.site_id}`, {
      token: site.api_key,
    });
    expect(asOtherTenant.status).toBe(200);
    expect(asOtherTenant.body.total).toBe(0);
  });
});
