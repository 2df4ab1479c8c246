import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectName, pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { account_id: string; site_id: string; api_key: string };
let second: string;
let alice: string;
let bob: string;
let carol: string;
let aliceId: string;

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite({ moderation: 'guests' });
  second = (await parley.request('POST', '/api/sites', { token: site.api_key, body: { name: 'Second blog' } })).body.id;
  const signIn = async (siteId: string, id: string, name: string) =>
    (await parley.request('POST', '/v1/sessions', { token: site.api_key, body: { site_id: siteId, user: { id, name } } })).body;
  const a = await signIn(site.site_id, 'alice', 'Alice Liddell');
  alice = a.token;
  aliceId = a.user.id;
  bob = (await signIn(second, 'bob', 'Bob')).token;
  carol = (await signIn(site.site_id, 'carol', 'Carol')).token;
});
afterAll(() => parley.close());

async function post(token: string | undefined, siteId: string, thread: string, content: string, parent_id?: string, author_name?: string) {
  const response = await parley.request('POST', '/v1/comments', { token, body: { site_id: siteId, thread_url: thread, content, parent_id, author_name } });
  expect(response.status).toBe(201);
  return response.body.id as string;
}
const queue = (query: string, token = site.api_key) => parley.request('GET', `/api/comments?${query}`, { token });
const ids = (response: { body: { comments: Array<{ id: string }> } }) => response.body.comments.map((comment) => comment.id);

describe('the moderation queue', () => {
  it('lists the comments of every site the caller moderates, newest first, each with what a moderator decides by', async () => {
    const thread = pageUrl();
    const parent = await post(alice, site.site_id, thread, 'A first comment that the reply below answers.');
    const reply = await post(undefined, site.site_id, thread, 'A guest reply', parent, 'Visitor');
    const elsewhere = await post(bob, second, pageUrl(), 'On the second site');
    await parley.request('POST', `/v1/comments/${parent}/flag`, { token: carol, body: {} });
    await parley.request('POST', `/v1/comments/${parent}/flag`, { body: { reason: 'off-topic' } });
    const threads = await parley.request('GET', `/api/sites/${site.site_id}/threads?url=${encodeURIComponent(thread)}`, { token: site.api_key });
    await parley.request('PATCH', `/api/sites/${site.site_id}/threads/${threads.body.threads[0].id}`, { token: site.api_key, body: { title: 'Hello world' } });

    const page = await queue('limit=3');
    expect(page.status).toBe(200);
    expect(ids(page)).toEqual([elsewhere, reply, parent]);
    const [, guestReply, flagged] = page.body.comments;
    expect(guestReply).toMatchObject({
      id: reply,
      site_id: site.site_id,
      thread_url: thread,
      content: 'A guest reply',
      author_name: 'Visitor',
      status: 'pending',
      moderation_status: 'pending',
      is_deleted: false,
      thread: { id: threads.body.threads[0].id, title: 'Hello world', closed: false },
      parent: { id: parent, author_name: 'Alice Liddell', excerpt: 'A first comment that the reply below answers.' },
      flags: { count: 0, reasons: [] },
      author: { id: null, kind: 'guest', comments: null },
    });
    expect(flagged).toMatchObject({
      id: parent,
      parent: null,
      flags: { count: 2, reasons: [{ reason: 'off-topic', created_at: expect.any(String) }, { reason: null, created_at: expect.any(String) }] },
      author: { id: aliceId, kind: 'user', comments: { published: 1, pending: 0, removed: 0, spam: 0 }, standing: null, ban_expires_at: null },
    });
    expect(guestReply).not.toHaveProperty('replies');
  });

  it("says each author's ban on the comment's site: an outright ban with its end, else a shadow ban, else none", async () => {
    const signIn = async (id: string) => (await parley.request('POST', '/v1/sessions', { token: site.api_key, body: { site_id: site.site_id, user: { id, name: id } } })).body;
    const [banned, hidden, timed] = await Promise.all(['dana', 'erin', 'fay'].map(signIn));
    const thread = pageUrl();
    const byBanned = await post(banned.token, site.site_id, thread, 'before the ban');
    const byHidden = await post(hidden.token, site.site_id, thread, 'before the shadow ban');
    const byTimed = await post(timed.token, site.site_id, thread, 'before the timed ban');
    const guest = await post(undefined, site.site_id, thread, 'a guest', undefined, 'Guest');
    const ban = (user_id: string, ban_type: string, expires_at?: string) =>
      parley.request('POST', `/api/sites/${site.site_id}/bans`, { token: site.api_key, body: { user_id, ban_type, expires_at } });
    const end = new Date(Date.now() + 86_400_000).toISOString();
    expect((await ban(banned.user.id, 'shadow_ban')).status).toBe(201);
    expect((await ban(banned.user.id, 'ban')).status).toBe(201);
    expect((await ban(hidden.user.id, 'shadow_ban')).status).toBe(201);
    expect((await ban(timed.user.id, 'ban', end)).status).toBe(201);
    const authors = new Map((await queue(`site_id=${site.site_id}&thread_url=${encodeURIComponent(thread)}`)).body.comments.map((c: any) => [c.id, c.author]));
    expect(authors.get(byBanned)).toMatchObject({ standing: 'banned', ban_expires_at: null });
    expect(authors.get(byHidden)).toMatchObject({ standing: 'shadow_banned', ban_expires_at: null });
    expect(authors.get(byTimed)).toMatchObject({ standing: 'banned', ban_expires_at: end });
    expect(authors.get(guest)).toEqual({ id: null, kind: 'guest', comments: null, standing: null, ban_expires_at: null });
    // The same author on another site is not banned there.
    const elsewhere = await post(bob, second, pageUrl(), 'not banned here');
    expect((await queue(`site_id=${second}&limit=1`)).body.comments[0]).toMatchObject({ id: elsewhere, author: { standing: null } });
  });

  it('filters by status, author, thread and time, and sorts oldest first or most flagged first', async () => {
    const thread = pageUrl();
    const kept = await post(alice, site.site_id, thread, 'kept');
    const removed = await post(alice, site.site_id, thread, 'to remove');
    const spam = await post(alice, site.site_id, thread, 'buy now');
    const deleted = await post(alice, site.site_id, thread, 'to delete');
    const pending = await post(undefined, site.site_id, thread, 'guest, waiting', undefined, 'Guest');
    const flaggedTwice = await post(alice, site.site_id, thread, 'flag me twice');
    await parley.request('PATCH', `/v1/comments/${removed}/moderate`, { token: site.api_key, body: { action: 'remove' } });
    await parley.request('PATCH', `/v1/comments/${spam}/moderate`, { token: site.api_key, body: { action: 'spam' } });
    await parley.request('DELETE', `/v1/comments/${deleted}`, { token: alice });
    await parley.request('POST', `/v1/comments/${kept}/flag`, { body: {} });
    await parley.request('POST', `/v1/comments/${flaggedTwice}/flag`, { body: {} });
    await parley.request('POST', `/v1/comments/${flaggedTwice}/flag`, { token: carol, body: {} });
    const inThread = `site_id=${site.site_id}&thread_url=${encodeURIComponent(thread)}`;

    expect(ids(await queue(`${inThread}&status=pending`))).toEqual([pending]);
    expect(ids(await queue(`${inThread}&status=removed`))).toEqual([removed]);
    expect(ids(await queue(`${inThread}&status=spam`))).toEqual([spam]);
    expect(ids(await queue(`${inThread}&status=deleted`))).toEqual([deleted]);
    expect(ids(await queue(`${inThread}&status=published`))).toEqual([flaggedTwice, kept]);
    expect(ids(await queue(`${inThread}&status=flagged`))).toEqual([flaggedTwice, kept]);
    expect(ids(await queue(`${inThread}&sort=most_flagged`))).toEqual([flaggedTwice, kept]);
    const mostFlagged = await queue(`${inThread}&sort=most_flagged&limit=1`);
    expect(ids(await queue(`${inThread}&sort=most_flagged&limit=1&cursor=${mostFlagged.body.next_cursor}`))).toEqual([kept]);
    expect(ids(await queue(`${inThread}&sort=oldest`))).toEqual([kept, removed, spam, deleted, pending, flaggedTwice]);
    expect(ids(await queue(`${inThread}&status=all&author=${aliceId}`))).toEqual([flaggedTwice, deleted, spam, removed, kept]);
    const all = (await queue(`${inThread}&sort=oldest`)).body.comments;
    const since = encodeURIComponent(all[2].created_at);
    const until = encodeURIComponent(all[4].created_at);
    expect(ids(await queue(`${inThread}&sort=oldest&since=${since}&until=${until}`))).toEqual(
      all.filter((c: any) => c.created_at >= all[2].created_at && c.created_at < all[4].created_at).map((c: any) => c.id),
    );
  });

  it('finds an author by the start of their display name, any case, guests included, or by id', async () => {
    const thread = pageUrl();
    const inThread = `site_id=${site.site_id}&thread_url=${encodeURIComponent(thread)}`;
    const byAlice = await post(alice, site.site_id, thread, 'by Alice');
    const byGuest = await post(undefined, site.site_id, thread, 'by a guest', undefined, 'alien_visitor%');
    await post(carol, site.site_id, thread, 'by Carol');
    const byName = async (author: string) => ids(await queue(`${inThread}&author=${encodeURIComponent(author)}`)).sort();
    expect(await byName('ali')).toEqual([byAlice, byGuest].sort());
    expect(await byName('ALICE L')).toEqual([byAlice]);
    expect(await byName('Alien_')).toEqual([byGuest]);
    // LIKE's wildcards mean nothing here: the name must start with these very characters.
    expect(await byName('alien%')).toEqual([]);
    expect(await byName('alien_visitor%')).toEqual([byGuest]);
    expect(await byName('lice')).toEqual([]);
    expect(await byName(aliceId)).toEqual([byAlice]);
    // With a full-text search: both must hold.
    expect(ids(await queue(`${inThread}&q=guest&author=ali`))).toEqual([byGuest]);
    expect(ids(await queue(`${inThread}&q=guest&author=car`))).toEqual([]);
    // Every site the caller moderates, newest first.
    expect(ids(await queue(`author=Alice+Liddell&limit=100`))[0]).toBe(byAlice);
  });

  it('finds a thread by any part of its title, its path, or its URL with or without scheme and trailing slash', async () => {
    const path = `/blog/search-${Date.now()}`;
    const url = `https://example.com${path}/`;
    const named = await post(alice, site.site_id, url, 'in the named thread');
    const other = await post(alice, site.site_id, `https://example.com${path}/more`, 'in a thread below it');
    const threads = await parley.request('GET', `/api/sites/${site.site_id}/threads?url=${encodeURIComponent(url)}`, { token: site.api_key });
    await parley.request('PATCH', `/api/sites/${site.site_id}/threads/${threads.body.threads[0].id}`, { token: site.api_key, body: { title: 'The Penguin Diaries' } });
    const byThread = async (thread: string) => ids(await queue(`site_id=${site.site_id}&thread=${encodeURIComponent(thread)}`));
    for (const thread of ['penguin DIARIES', 'The Penguin', path, `${path}/`, `example.com${path}`, `http://example.com${path}`, url, `EXAMPLE.com${path}/`]) {
      expect(await byThread(thread), thread).toEqual([named]);
    }
    expect(await byThread(`${path}/more`)).toEqual([other]);
    expect(await byThread('/blog')).toEqual([]);
    expect(await byThread('no such title')).toEqual([]);
    // With thread_url, both must hold.
    expect(ids(await queue(`site_id=${site.site_id}&thread=penguin&thread_url=${encodeURIComponent(url)}`))).toEqual([named]);
    expect(ids(await queue(`site_id=${site.site_id}&thread=penguin&thread_url=${encodeURIComponent(`https://example.com${path}/more`)}`))).toEqual([]);
  });

  it('searches content and author names with the full-text index: every word must appear', async () => {
    const thread = pageUrl();
    const both = await post(alice, site.site_id, thread, 'Penguins waddle across the glacier');
    await post(alice, site.site_id, thread, 'Penguins swim');
    const byName = await post(undefined, site.site_id, thread, 'Nothing special here', undefined, 'Glacier Watcher');
    const edited = await post(alice, site.site_id, thread, 'A typo: glaicer');
    await parley.request('PATCH', `/v1/comments/${edited}`, { token: alice, body: { content: 'Fixed: glacier' } });
    const search = (q: string) => queue(`site_id=${site.site_id}&q=${encodeURIComponent(q)}`);
    expect(ids(await search('glacier')).sort()).toEqual([both, byName, edited].sort());
    expect(ids(await search('PENGUINS glacier'))).toEqual([both]);
    expect(ids(await search('liddell penguins')).length).toBe(2);
    expect(ids(await search('glaicer'))).toEqual([]);
    expect(ids(await search('"penguins" OR NEAR(swim)')).length).toBe(0);
    // Written out of time order (as an import would): found in created_at order all the same.
    const { kysely } = parley.app.db;
    const row = await kysely.selectFrom('comments').selectAll().where('id', '=', both).executeTakeFirstOrThrow();
    const lastYear = new Date(Date.now() - 365 * 86_400_000).toISOString();
    await kysely.insertInto('comments').values({ ...row, id: 'cmt_imported', root_id: 'cmt_imported', created_at: lastYear, updated_at: lastYear }).execute();
    expect(ids(await search('glacier penguins'))).toEqual([both, 'cmt_imported']);
    expect(ids(await queue(`site_id=${site.site_id}&q=glacier+penguins&sort=oldest`))).toEqual(['cmt_imported', both]);
  });

  it('pages with a cursor that stays correct while comments arrive', async () => {
    const thread = pageUrl();
    const written: string[] = [];
    for (let i = 0; i < 5; i++) written.push(await post(alice, site.site_id, thread, `comment ${i}`));
    const scope = `site_id=${site.site_id}&thread_url=${encodeURIComponent(thread)}&limit=2`;
    const first = await queue(scope);
    expect(ids(first)).toEqual([written[4], written[3]]);
    // New comments arrive between pages: they belong before page 1, never shift the next page.
    await post(alice, site.site_id, thread, 'newer');
    await post(alice, site.site_id, thread, 'newest');
    const secondPage = await queue(`${scope}&cursor=${first.body.next_cursor}`);
    expect(ids(secondPage)).toEqual([written[2], written[1]]);
    const last = await queue(`${scope}&cursor=${secondPage.body.next_cursor}`);
    expect(ids(last)).toEqual([written[0]]);
    expect(last.body.next_cursor).toBeNull();
  });

  it('merges the pages of several sites in one order', async () => {
    const page = await queue('limit=100&sort=oldest');
    const times = page.body.comments.map((comment: { created_at: string; id: string }) => `${comment.created_at} ${comment.id}`);
    expect(times).toEqual([...times].sort());
    expect(new Set(page.body.comments.map((comment: { site_id: string }) => comment.site_id))).toEqual(new Set([site.site_id, second]));
  });
});

// SQLite reads a search's matches from FTS5 in time order, at most 5,000 a request (walkSearch in
// src/db/search-index.ts); PostgreSQL's planner reads them its own way.
describe.skipIf(dialectName === 'postgres')('the moderation queue, searching a word thousands of comments hold', () => {
  it('stops reading after 5,000 matches with a short page and a cursor that goes on from there', async () => {
    const rare = await post(alice, site.site_id, pageUrl(), 'a common word, once on this site');
    // Written through the service as guests would post them (HTTP would take minutes).
    const { createComment } = await import('../comments/service.ts');
    const guest = { kind: 'public' as const, ip: '127.0.0.1' };
    const thread = pageUrl();
    for (let start = 0; start < 7_000; start += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, i) => createComment(parley.app.db, guest, { site_id: second, thread_url: thread, content: `common word number ${start + i}` })));
    }
    const first = await queue(`site_id=${site.site_id}&q=common`);
    expect(first.body.comments).toEqual([]);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const next = await queue(`site_id=${site.site_id}&q=common&cursor=${first.body.next_cursor}`);
    expect(ids(next)).toEqual([rare]);
    expect(next.body.next_cursor).toBeNull();
    const everywhere = await queue('q=common+number&limit=3');
    expect(everywhere.body.comments.map((comment: { content: string }) => comment.content)).toEqual([
      'common word number 6999',
      'common word number 6998',
      'common word number 6997',
    ]);
  }, 60_000);
});
