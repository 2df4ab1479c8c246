import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type TestParley } from '../../test/helper.ts';
import { readersSite } from './notifications.fixture.ts';

let parley: TestParley;
beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

describe("a reader's follows and notifications are theirs alone", () => {
  it('answers 401 without a credential, 403 to an API key, and 404 to a session of another site', async () => {
    const { site_id, api_key, url, reader } = await readersSite(parley);
    const elsewhere = await readersSite(parley);
    const stranger = await elsewhere.reader('Sam');
    const calls = [
      ['POST', '/v1/follows', { site_id, thread_url: url }],
      ['GET', `/v1/follows?site_id=${site_id}`, undefined],
      ['GET', `/v1/notifications?site_id=${site_id}`, undefined],
      ['POST', '/v1/notifications/read', { site_id, all: true }],
    ] as const;
    for (const [method, path, body] of calls) {
      expect((await parley.request(method, path, { body })).status, path).toBe(401);
      expect((await parley.request(method, path, { body, token: api_key })).status, path).toBe(403);
      const refused = await parley.request(method, path, { body, token: stranger.token });
      expect(refused.status, path).toBe(404);
      expect(refused.headers.get('content-type')).toContain('application/problem+json');
    }
    const ann = await reader('Ann');
    const follow = await ann.follow();
    expect((await parley.request('DELETE', `/v1/follows/${follow.id}`, {})).status).toBe(401);
    expect((await parley.request('DELETE', `/v1/follows/${follow.id}`, { token: api_key })).status).toBe(403);
    expect((await parley.request('DELETE', `/v1/follows/${follow.id}`, { token: stranger.token })).status).toBe(404);
  });

  it("never shows, ends or marks read another reader's", async () => {
    const { site_id, reader, settled } = await readersSite(parley);
    const [ann, bob, carl] = [await reader('Ann'), await reader('Bob'), await reader('Carl')];
    const follow = await ann.follow();
    await carl.post('Hello');
    await settled();
    const anns = await ann.notifications();
    expect(anns.unread).toBe(1);

    expect((await parley.request('DELETE', `/v1/follows/${follow.id}`, { token: bob.token })).status).toBe(404);
    expect((await parley.request('GET', `/v1/follows?site_id=${site_id}`, { token: bob.token })).body.follows).toEqual([]);
    expect(await bob.notifications()).toEqual({ notifications: [], next_cursor: null, unread: 0 });
    const marked = await parley.request('POST', '/v1/notifications/read', { token: bob.token, body: { site_id, ids: [anns.notifications[0].id] } });
    expect(marked.body).toEqual({ unread: 0 });
    expect((await ann.notifications()).unread).toBe(1);
  });

  it("tells a follower nothing of a comment the public does not see (held), nor a removed comment's text", async () => {
    const { reader, settled } = await readersSite(parley, { moderationMode: 'all' });
    const [ann, bob] = [await reader('Ann'), await reader('Bob')];
    await ann.follow();
    await bob.post('Held, not public');
    await settled();
    expect((await ann.notifications()).notifications).toEqual([]);
  });
});
