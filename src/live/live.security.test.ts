import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERASED_NAME } from '../commenters/erase.ts';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { SseClient } from '../../test/sse-client.ts';

let parley: TestParley;

beforeAll(async () => {
  parley = await startParley();
});

afterAll(async () => {
  await parley.close();
});

/** A site user signed in: their session token and the site's id for them. */
async function signedIn(apiKey: string, siteId: string, name: string) {
  const response = await parley.request('POST', '/v1/sessions', { token: apiKey, body: { site_id: siteId, user: { id: `${name}-${Date.now()}`, name } } });
  expect(response.status).toBe(201);
  return { token: response.body.token as string, userId: response.body.user.id as string };
}

async function post(siteId: string, thread: string, token: string, content: string, parentId?: string) {
  const response = await parley.request('POST', '/v1/comments', { token, body: { site_id: siteId, thread_url: thread, content, ...(parentId && { parent_id: parentId }) } });
  expect(response.status).toBe(201);
  return response.body.id as string;
}

/** Everything a reader resuming from the thread's first event is sent, once it is `ready`. */
async function replayFromStart(siteId: string, thread: string) {
  const url = `${parley.url}/v1/comments/stream?site_id=${siteId}&thread_url=${encodeURIComponent(thread)}`;
  const client = await SseClient.open(url, { 'last-event-id': '0' });
  expect(client.status).toBe(200);
  await client.until((c) => c.of('ready').length === 1);
  client.close();
  return client.messages;
}

describe('a stream resumed from an old Last-Event-ID', () => {
  it('replays only what the public may see now: no removed, replaced, deleted or banned text, no erased name', async () => {
    const site = await parley.newSite();
    const thread = pageUrl();
    const write = (token: string, content: string, parentId?: string) => post(site.site_id, thread, token, content, parentId);
    const moderate = (id: string, action: string) => parley.request('PATCH', `/v1/comments/${id}/moderate`, { token: site.api_key, body: { action } });
    const [writer, erased, banned] = [
      await signedIn(site.api_key, site.site_id, 'Writer'),
      await signedIn(site.api_key, site.site_id, 'Margaret Realname'),
      await signedIn(site.api_key, site.site_id, 'Banned'),
    ];

    const kept = await write(writer.token, 'still shown');
    const removed = await write(site.api_key, 'removed secret');
    const orphan = await write(writer.token, 'reply under a removed comment', removed);
    const spam = await write(writer.token, 'spam secret');
    const edited = await write(writer.token, 'first draft secret');
    const deleted = await write(writer.token, 'deleted secret');
    const erasedComment = await write(erased.token, 'words of an erased user');
    const bannedComment = await write(banned.token, 'shadow-banned secret');

    expect((await moderate(removed, 'remove')).status).toBe(200);
    expect((await moderate(spam, 'spam')).status).toBe(200);
    expect((await parley.request('PATCH', `/v1/comments/${edited}`, { token: writer.token, body: { content: 'final wording' } })).status).toBe(200);
    expect((await parley.request('DELETE', `/v1/comments/${deleted}`, { token: writer.token })).status).toBe(200);
    expect((await parley.request('DELETE', `/api/sites/${site.site_id}/users/${erased.userId}`, { token: site.api_key })).status).toBe(204);
    const ban = await parley.request('POST', `/api/sites/${site.site_id}/bans`, { token: site.api_key, body: { user_id: banned.userId, ban_type: 'shadow_ban' } });
    expect(ban.status).toBe(201);

    const replay = await replayFromStart(site.site_id, thread);
    const sent = JSON.stringify(replay);
    for (const secret of ['removed secret', 'reply under a removed comment', 'spam secret', 'first draft secret', 'deleted secret', 'Margaret Realname', 'shadow-banned secret']) {
      expect(sent).not.toContain(secret);
    }
    // What the public sees now still arrives, as it is now.
    const shown = new Map(replay.filter((m) => m.data.comment).map((m) => [m.data.comment.id, m.data.comment]));
    expect(shown.get(kept)).toMatchObject({ content: 'still shown', author_name: 'Writer' });
    expect(shown.get(edited)).toMatchObject({ content: 'final wording', is_edited: true });
    expect(shown.get(deleted)).toMatchObject({ content: null, is_deleted: true });
    expect(shown.get(erasedComment)).toMatchObject({ content: 'words of an erased user', author_name: ERASED_NAME });
    for (const gone of [removed, orphan, spam, bannedComment]) expect(shown.has(gone), gone).toBe(false);
    // Every event keeps its number, so the reader's Last-Event-ID moves on as a live reader's would.
    const numbered = replay.filter((m) => m.data.type !== 'ready').map((m) => Number(m.id));
    expect(numbered).toEqual(numbered.map((_, i) => i + 1));
    expect(replay.at(-1)).toEqual({ id: String(numbered.length), data: { type: 'ready' } });
  });

  it('replays nothing of a comment held again for approval after an edit', async () => {
    const site = await parley.newSite({ moderation: 'all' });
    const thread = pageUrl();
    const author = await signedIn(site.api_key, site.site_id, 'Author');
    const id = await post(site.site_id, thread, author.token, 'approved text');
    expect((await parley.request('PATCH', `/v1/comments/${id}/moderate`, { token: site.api_key, body: { action: 'approve' } })).status).toBe(200);
    const edit = await parley.request('PATCH', `/v1/comments/${id}`, { token: author.token, body: { content: 'edit awaiting approval' } });
    expect(edit.body.status).toBe('pending');

    const sent = JSON.stringify(await replayFromStart(site.site_id, thread));
    expect(sent).not.toContain('approved text');
    expect(sent).not.toContain('edit awaiting approval');
  });
});
