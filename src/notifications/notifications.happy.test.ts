import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { queueNotificationJob } from './jobs.ts';
import { readersSite } from './notifications.fixture.ts';

let parley: TestParley;
beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

describe('following a page', () => {
  it('follows a page without comments, answers the same follow again, lists it, and stops', async () => {
    const { site_id, url, reader } = await readersSite(parley);
    const ann = await reader('Ann');
    const first = await parley.request('POST', '/v1/follows', { token: ann.token, body: { site_id, thread_url: url } });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ id: expect.stringMatching(/^fol_/), site_id, thread_url: url, thread_title: null, created_at: expect.any(String) });
    const again = await parley.request('POST', '/v1/follows', { token: ann.token, body: { site_id, thread_url: `${url}#top` } });
    expect(again).toMatchObject({ status: 200, body: first.body });
    const other = await ann.follow(pageUrl());

    const listed = await parley.request('GET', `/v1/follows?site_id=${site_id}`, { token: ann.token });
    expect(listed.body).toEqual({ follows: [other, first.body], next_cursor: null });
    const paged = await parley.request('GET', `/v1/follows?site_id=${site_id}&limit=1`, { token: ann.token });
    expect(paged.body.follows).toEqual([other]);
    const rest = await parley.request('GET', `/v1/follows?site_id=${site_id}&limit=1&cursor=${paged.body.next_cursor}`, { token: ann.token });
    expect(rest.body).toEqual({ follows: [first.body], next_cursor: null });
    const ofPage = await parley.request('GET', `/v1/follows?site_id=${site_id}&thread_url=${encodeURIComponent(url)}`, { token: ann.token });
    expect(ofPage.body.follows).toEqual([first.body]);

    expect((await parley.request('DELETE', `/v1/follows/${first.body.id}`, { token: ann.token })).status).toBe(204);
    const after = await parley.request('GET', `/v1/follows?site_id=${site_id}&thread_url=${encodeURIComponent(url)}`, { token: ann.token });
    expect(after.body).toEqual({ follows: [], next_cursor: null });
  });
});

describe('notifications of new comments', () => {
  it('tells the parent\'s author of a reply, the mentioned of a mention, and followers of the rest, each once, never the author', async () => {
    const { reader, settled } = await readersSite(parley);
    const [ann, bob, carl, dee] = [await reader('Ann'), await reader('Bob'), await reader('Carl'), await reader('Dee')];
    await ann.follow();
    await bob.follow();
    await carl.follow();
    const anns = await ann.post('What tea do you drink in the morning?');
    await settled();
    const carls = await carl.post(`Assam, always. ${dee.mention} drinks green tea.`, anns);
    await settled();

    const forAnn = await ann.notifications();
    expect(forAnn).toEqual({
      notifications: [
        {
          id: expect.stringMatching(/^ntf_/),
          kind: 'reply',
          comment_id: carls,
          thread_url: expect.any(String),
          thread_title: null,
          created_at: expect.any(String),
          read: false,
          author_name: 'Carl',
          excerpt: 'Assam, always. @Dee drinks green tea.',
        },
      ],
      next_cursor: null,
      unread: 1,
    });
    expect((await dee.notifications()).notifications).toMatchObject([{ kind: 'mention', comment_id: carls }]);
    expect((await bob.notifications()).notifications).toMatchObject([
      { kind: 'followed_thread', comment_id: carls, author_name: 'Carl' },
      { kind: 'followed_thread', comment_id: anns, author_name: 'Ann', excerpt: 'What tea do you drink in the morning?' },
    ]);
    expect((await carl.notifications()).notifications).toMatchObject([{ kind: 'followed_thread', comment_id: anns }]);
  });

  it('marks some or all read, pages newest first, and lists the unread only', async () => {
    const { site_id: siteId, reader, settled } = await readersSite(parley);
    const [ann, bob] = [await reader('Ann'), await reader('Bob')];
    await ann.follow();
    for (let i = 1; i <= 3; i++) await bob.post(`Comment ${i} ${'x'.repeat(200)}`);
    await settled();
    const all = await ann.notifications();
    expect(all.unread).toBe(3);
    expect(all.notifications[0].excerpt).toHaveLength(140);
    expect(all.notifications[0].excerpt).toMatch(/^Comment 3 x+…$/);

    const first = await ann.notifications('&limit=2');
    expect(first.notifications.map((n) => n.id)).toEqual(all.notifications.slice(0, 2).map((n) => n.id));
    const second = await ann.notifications(`&limit=2&cursor=${first.next_cursor}`);
    expect(second).toMatchObject({ notifications: [{ id: all.notifications[2].id }], next_cursor: null });

    const marked = await parley.request('POST', '/v1/notifications/read', { token: ann.token, body: { site_id: siteId, ids: [all.notifications[0].id] } });
    expect(marked).toMatchObject({ status: 200, body: { unread: 2 } });
    expect((await ann.notifications('&unread_only=true')).notifications.map((n) => n.id)).toEqual(all.notifications.slice(1).map((n) => n.id));
    expect((await ann.notifications()).notifications.map((n) => n.read)).toEqual([true, false, false]);
    const allRead = await parley.request('POST', '/v1/notifications/read', { token: ann.token, body: { site_id: siteId, all: true } });
    expect(allRead.body).toEqual({ unread: 0 });
    expect((await ann.notifications('&unread_only=true')).notifications).toEqual([]);
  });

  it('tells no one of a comment no longer public when its job is done', async () => {
    const { site_id, reader, settled } = await readersSite(parley);
    const [ann, bob] = [await reader('Ann'), await reader('Bob')];
    await ann.follow();
    const gone = await bob.post('Soon deleted');
    await settled();
    expect((await parley.request('DELETE', `/v1/comments/${gone}`, { token: bob.token })).status).toBe(200);
    // As if the worker came to it only now.
    await parley.app.db.kysely.deleteFrom('notifications').where('comment_id', '=', gone).execute();
    await parley.app.db.kysely.transaction().execute((trx) => queueNotificationJob(trx, { kind: 'published', siteId: site_id, commentId: gone }));
    parley.app.db.changes.notificationJobsQueued();
    await settled();
    expect((await ann.notifications()).notifications).toEqual([]);
  });
});

describe('notices of moderators\' decisions', () => {
  it('tells a reader their comment is held, then approved (and its followers then), or removed with the reason', async () => {
    const { reader, settled } = await readersSite(parley, { moderationMode: 'all' });
    const [ann, bob, mo] = [await reader('Ann'), await reader('Bob'), await reader('Mo', true)];
    await bob.follow();
    const held = await ann.post('Waiting for a moderator');
    await settled();
    expect((await ann.notifications()).notifications).toMatchObject([{ kind: 'moderation', comment_id: held, action: 'held', reason: null, excerpt: '' }]);
    expect((await bob.notifications()).notifications).toEqual([]);

    expect((await parley.request('PATCH', `/v1/comments/${held}/moderate`, { token: mo.token, body: { action: 'approve' } })).status).toBe(200);
    await settled();
    expect((await ann.notifications()).notifications).toMatchObject([
      { kind: 'moderation', action: 'approved', reason: null, excerpt: 'Waiting for a moderator' },
      { kind: 'moderation', action: 'held' },
    ]);
    expect((await bob.notifications()).notifications).toMatchObject([{ kind: 'followed_thread', comment_id: held }]);

    const removed = await parley.request('PATCH', `/v1/comments/${held}/moderate`, { token: mo.token, body: { action: 'remove', reason: 'Off topic' } });
    expect(removed.status).toBe(200);
    await settled();
    const notices = (await ann.notifications()).notifications;
    expect(notices[0]).toMatchObject({ kind: 'moderation', action: 'removed', reason: 'Off topic', excerpt: '', author_name: 'Ann' });
    // Only readers are told: a shadow ban never is.
    expect((await parley.request('PATCH', `/v1/comments/${await bob.post('Hm')}/moderate`, { token: mo.token, body: { action: 'shadow_ban' } })).status).toBe(200);
    await settled();
    expect((await bob.notifications()).notifications.filter((n) => n.kind === 'moderation')).toMatchObject([{ action: 'held' }]);
  });
});
