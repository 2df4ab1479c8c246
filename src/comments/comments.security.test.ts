import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { startReceiver, subscribe, WEBHOOK_TEST_ENV, type Receiver } from '../../test/receiver.ts';

let parley: TestParley;
let receiver: Receiver;

beforeAll(async () => {
  parley = await startParley(WEBHOOK_TEST_ENV);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await parley.close();
});

/** A site that holds every comment for approval, with an author, another reader and a moderator. */
async function premoderatedThread() {
  const site = await parley.newSite({ moderation: 'all' });
  const author = await parley.signIn(site.api_key, site.site_id, { id: 'author', name: 'Author' });
  const reader = await parley.signIn(site.api_key, site.site_id, { id: 'reader', name: 'Reader' });
  const moderator = await parley.signIn(site.api_key, site.site_id, { id: 'mod', name: 'Mo', moderator: true });
  const thread = pageUrl();
  const listPath = `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${site.site_id}&sort=oldest`;
  const post = async (token: string, content: string, parent_id?: string): Promise<string> => {
    const created = await parley.request('POST', '/v1/comments', { token, body: { thread_url: thread, site_id: site.site_id, content, parent_id } });
    expect(created.status).toBe(201);
    return created.body.id;
  };
  const approve = async (id: string) =>
    expect((await parley.request('PATCH', `/v1/comments/${id}/moderate`, { token: moderator, body: { action: 'approve' } })).status).toBe(200);
  const edit = (token: string, id: string, content: string) => parley.request('PATCH', `/v1/comments/${id}`, { token, body: { content } });
  /** Every comment of the thread one caller sees, as [content, status] in list order, and the list's total. */
  const seen = async (token?: string) => {
    const list = await parley.request('GET', listPath, { token });
    expect(list.status).toBe(200);
    const walk = (comments: any[]): unknown[] => comments.flatMap((c) => [[c.content, c.status], ...walk(c.replies)]);
    return { total: list.body.total, comments: walk(list.body.comments) };
  };
  return { site, author, reader, moderator, post, approve, edit, seen };
}

describe('an edit under pre-moderation', () => {
  it('puts an approved comment back to pending: the public sees nothing of it until a moderator approves the new text', async () => {
    const { author, reader, moderator, post, approve, edit, seen } = await premoderatedThread();
    const id = await post(author, 'A harmless first version');
    await approve(id);
    // Read first, so that the answers are in the response caches when the edit comes.
    expect(await seen()).toEqual({ total: 1, comments: [['A harmless first version', 'published']] });
    expect((await parley.request('GET', `/v1/comments/${id}`)).status).toBe(200);
    expect(await seen(reader)).toEqual({ total: 1, comments: [['A harmless first version', 'published']] });

    const edited = await edit(author, id, 'Something the moderators never saw');
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ content: 'Something the moderators never saw', is_edited: true, status: 'pending', moderation_status: 'pending' });

    for (const token of [undefined, reader]) {
      expect(await seen(token)).toEqual({ total: 0, comments: [] });
      expect((await parley.request('GET', `/v1/comments/${id}`, { token })).status).toBe(404);
    }
    expect(await seen(author)).toEqual({ total: 1, comments: [['Something the moderators never saw', 'pending']] });
    expect((await parley.request('GET', `/v1/comments/${id}`, { token: author })).body).toMatchObject({ status: 'pending', user_is_author: true });
    expect(await seen(moderator)).toEqual({ total: 1, comments: [['Something the moderators never saw', 'pending']] });

    await approve(id);
    expect(await seen()).toEqual({ total: 1, comments: [['Something the moderators never saw', 'published']] });
  });

  it('holds an edited reply, and the replies below it, away from the public', async () => {
    const { author, reader, post, approve, edit, seen } = await premoderatedThread();
    const top = await post(author, 'top');
    await approve(top);
    const mine = await post(author, 'my reply', top);
    await approve(mine);
    await approve(await post(reader, 'below mine', mine));
    const readTop = async () => (await parley.request('GET', `/v1/comments/${top}`)).body.replies.map((c: any) => c.content);
    expect((await parley.request('GET', `/v1/comments/${top}`)).body.replies[0].replies[0].content).toBe('below mine');

    expect((await edit(author, mine, 'my reply, rewritten')).body.status).toBe('pending');
    expect(await readTop()).toEqual([]);
    expect((await seen()).comments).toEqual([['top', 'published']]);
  });

  it("leaves a moderator's own edit published, and holds nothing where the site does not moderate", async () => {
    const { author, moderator, post, approve, edit } = await premoderatedThread();
    const byModerator = await post(moderator, 'from the moderator');
    expect((await edit(moderator, byModerator, 'from the moderator, edited')).body.status).toBe('published');

    const open = await parley.newSite();
    const writer = await parley.signIn(open.api_key, open.site_id, { id: 'writer', name: 'Writer' });
    const created = await parley.request('POST', '/v1/comments', { token: writer, body: { thread_url: pageUrl(), site_id: open.site_id, content: 'open site' } });
    expect((await edit(writer, created.body.id, 'open site, edited')).body).toMatchObject({ status: 'published', moderation_status: null });

    const pending = await post(author, 'still waiting');
    expect((await edit(author, pending, 'still waiting, edited')).body).toMatchObject({ status: 'pending', moderation_status: 'pending' });
    await approve(pending);
  });

  it('sends comment.updated with the pending status', async () => {
    const { site, author, post, approve, edit } = await premoderatedThread();
    await subscribe(parley, site, receiver.url, ['comment.updated']);
    const id = await post(author, 'first text');
    await approve(id);
    await edit(author, id, 'second text');
    const [delivery] = await receiver.waitFor(1, 10_000);
    expect(delivery.body).toMatchObject({ event: 'comment.updated', data: { comment: { id, content: 'second text', status: 'pending' } } });
  });
});
