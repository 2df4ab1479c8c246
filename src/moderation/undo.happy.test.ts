import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { startReceiver, subscribe, WEBHOOK_TEST_ENV, type Receiver } from '../../test/receiver.ts';

let parley: TestParley;
let receiver: Receiver;
let site: { account_id: string; site_id: string; api_key: string };
let author: string;
let authorId: string;

beforeAll(async () => {
  receiver = await startReceiver();
  parley = await startParley(WEBHOOK_TEST_ENV);
  site = await parley.newSite({ moderation: 'all' });
  const session = (await parley.request('POST', '/v1/sessions', { token: site.api_key, body: { site_id: site.site_id, user: { id: 'author', name: 'Author' } } })).body;
  author = session.token;
  authorId = session.user.id;
  await subscribe(parley, site, receiver.url, ['moderation.action']);
});
afterAll(async () => {
  await parley.close();
  await receiver.close();
});

async function pending(count: number, thread = pageUrl()) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    ids.push((await parley.request('POST', '/v1/comments', { token: author, body: { site_id: site.site_id, thread_url: thread, content: `waiting ${i}` } })).body.id);
  }
  return ids;
}
const bulk = (body: unknown) => parley.request('POST', '/api/comments/moderate', { token: site.api_key, body });
const undo = (ids: string[]) => parley.request('POST', '/api/comments/moderate/undo', { token: site.api_key, body: { ids } });
const state = async (id: string) => {
  const item = (await parley.request('GET', `/api/comments?site_id=${site.site_id}&limit=100`, { token: site.api_key })).body.comments.find((c: { id: string }) => c.id === id);
  return { status: item.status, moderation_status: item.moderation_status, flags: item.flags.count, standing: item.author.standing };
};
const publicList = async (thread: string) =>
  (await parley.request('GET', `/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent(thread)}`)).body.comments.map((c: { id: string }) => c.id);

describe('undo', () => {
  it.each(['approve', 'remove', 'spam'])('takes back %s: the comments are as before, the public list too, logged as undo', async (action) => {
    const thread = pageUrl();
    const ids = await pending(2, thread);
    const before = await Promise.all(ids.map(state));
    await bulk({ ids, action });
    const response = await undo(ids);
    expect(response.status).toBe(200);
    expect(response.body.results).toEqual(
      ids.map((id, i) => ({ id, ok: true, result: { id, action: 'undo', status: 'pending', moderation_status: 'pending', content: `waiting ${i}`, author_name: 'Author' } })),
    );
    expect(await Promise.all(ids.map(state))).toEqual(before);
    expect(await publicList(thread)).toEqual([]);
    const log = await parley.request('GET', `/api/sites/${site.site_id}/moderation-log?comment_id=${ids[0]}`, { token: site.api_key });
    expect(log.body.entries.map((entry: { action: string }) => entry.action)).toEqual(['undo', action]);
    const undoLog = await parley.request('GET', `/api/sites/${site.site_id}/moderation-log?action=undo&limit=2`, { token: site.api_key });
    expect(undoLog.body.entries.map((entry: { comment: { id: string } }) => entry.comment.id).sort()).toEqual([...ids].sort());
  });

  it('brings a removed published comment back to the public list, and emits moderation.action undo', async () => {
    const thread = pageUrl();
    const [id] = await pending(1, thread);
    await bulk({ ids: [id], action: 'approve' });
    await bulk({ ids: [id], action: 'remove' });
    expect(await publicList(thread)).toEqual([]);
    expect((await undo([id])).body.results[0]).toMatchObject({ ok: true, result: { status: 'published', moderation_status: null } });
    expect(await publicList(thread)).toEqual([id]);
    const sent = () => receiver.received.find((delivery) => delivery.body.data?.action === 'undo' && delivery.body.data.comment.id === id)?.body.data;
    await expect.poll(sent, { timeout: 10_000 }).toMatchObject({ action: 'undo', reason: null, comment: { id, status: 'published' } });
  });

  it('lifts the shadow ban a shadow_ban made: every comment of the author shows again', async () => {
    const thread = pageUrl();
    const ids = await pending(2, thread);
    await bulk({ ids, action: 'approve' });
    await bulk({ ids: [ids[0]], action: 'shadow_ban' });
    expect(await state(ids[1])).toMatchObject({ moderation_status: 'shadow_banned', standing: 'shadow_banned' });
    expect(await publicList(thread)).toEqual([]);
    expect((await undo([ids[0]])).body.results[0]).toMatchObject({ ok: true, result: { status: 'published', moderation_status: null } });
    expect(await state(ids[1])).toMatchObject({ moderation_status: null, standing: null });
    expect((await publicList(thread)).sort()).toEqual([...ids].sort());
    const bans = await parley.request('GET', `/api/sites/${site.site_id}/bans?user_id=${authorId}`, { token: site.api_key });
    expect(bans.body.bans).toEqual([]);
  });

  it('makes again the shadow ban an unhide lifted, with its reason', async () => {
    const thread = pageUrl();
    const ids = await pending(2, thread);
    await bulk({ ids, action: 'approve' });
    await bulk({ ids: [ids[0]], action: 'shadow_ban', reason: 'troll' });
    await bulk({ ids: [ids[0]], action: 'unhide' });
    expect(await publicList(thread)).toHaveLength(2);
    expect((await undo([ids[0]])).body.results[0]).toMatchObject({ ok: true, result: { moderation_status: 'shadow_banned' } });
    expect(await state(ids[1])).toMatchObject({ moderation_status: 'shadow_banned', standing: 'shadow_banned' });
    expect(await publicList(thread)).toEqual([]);
    const bans = await parley.request('GET', `/api/sites/${site.site_id}/bans?user_id=${authorId}`, { token: site.api_key });
    expect(bans.body.bans).toMatchObject([{ ban_type: 'shadow_ban', reason: 'troll' }]);
    await bulk({ ids: [ids[0]], action: 'unhide' });
  });

  it("gives back the flags dismiss_flags dismissed: the comment is in Flagged again", async () => {
    const [id] = await pending(1);
    await bulk({ ids: [id], action: 'approve' });
    await parley.request('POST', `/v1/comments/${id}/flag`, { body: { reason: 'rude' } });
    await bulk({ ids: [id], action: 'dismiss_flags' });
    expect(await state(id)).toMatchObject({ flags: 0 });
    expect((await undo([id])).body.results[0]).toMatchObject({ ok: true });
    expect(await state(id)).toMatchObject({ status: 'published', flags: 1 });
    const flagged = await parley.request('GET', `/api/comments?site_id=${site.site_id}&status=flagged`, { token: site.api_key });
    expect(flagged.body.comments.map((c: { id: string }) => c.id)).toContain(id);
    const flags = await parley.request('GET', `/api/comments/${id}/flags`, { token: site.api_key });
    expect(flags.body).toMatchObject({ flag_count: 1, flags: [{ reason: 'rude', dismissed_at: null }] });
  });
});
