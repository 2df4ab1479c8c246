import { parseFeed } from '@rowanmanning/feed-parser';
import { SaxesParser } from 'saxes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, threadWithUsers, type TestParley } from '../../test/helper.ts';
import { escapeXml } from './atom.ts';

let parley: TestParley;
beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

/** A thread whose comments a test writes and moderates, with its recent-comments and feed paths. */
async function thread() {
  const users = await threadWithUsers(parley);
  const url = decodeURIComponent(/thread_url=([^&]+)/.exec(users.path)![1]);
  const siteId = users.site.site_id;
  const recent = async (query = '') => {
    const response = await parley.request('GET', `/v1/comments/recent?site_id=${siteId}${query}`);
    expect(response.status).toBe(200);
    return response.body.comments as any[];
  };
  const moderate = (id: string, action: string) => users.write('PATCH', `/v1/comments/${id}/moderate`, users.moderator, { action });
  const threadFeed = `/v1/feeds/thread.atom?site_id=${siteId}&thread_url=${encodeURIComponent(url)}`;
  const siteFeed = `/v1/feeds/site.atom?site_id=${siteId}`;
  return { ...users, url, siteId, recent, moderate, threadFeed, siteFeed };
}

/** Throws unless `xml` is well-formed XML. */
function wellFormed(xml: string): void {
  const parser = new SaxesParser({ xmlns: true });
  parser.on('error', (error) => {
    throw error;
  });
  parser.write(xml).close();
}

async function feed(path: string) {
  const response = await fetch(parley.url + path);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
  const xml = await response.text();
  wellFormed(xml);
  return { response, xml, parsed: parseFeed(xml) };
}

describe('recent comments', () => {
  it('list the newest comments the public sees, with their thread, newest first', async () => {
    const { alice, bob, post, recent, moderate, url, write } = await thread();
    const first = await post(alice, 'first');
    const reply = await post(bob, 'reply', first);
    const under = await post(alice, 'under the reply', reply);
    const last = await post(bob, 'last');
    expect((await recent()).map((c) => c.id)).toEqual([last, under, reply, first]);
    const [newest] = await recent();
    expect(newest).toMatchObject({ thread_url: url, thread_title: null, content_html: expect.stringMatching(/^<p>last<\/p>\s*$/), author_name: 'Bob', user_vote: null });
    expect(newest).not.toHaveProperty('replies');

    // A removed reply hides the reply under it; a deleted comment is left out, its replies stay.
    await moderate(reply, 'remove');
    expect((await recent()).map((c) => c.id)).toEqual([last, first]);
    await moderate(reply, 'approve');
    await write('DELETE', `/v1/comments/${reply}`, bob);
    expect((await recent()).map((c) => c.id)).toEqual([last, under, first]);
    await moderate(first, 'shadow_ban');
    expect((await recent()).map((c) => c.id)).toEqual([last]);
  });

  it('take a limit and a thread', async () => {
    const { alice, post, recent, siteId } = await thread();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await post(alice, `comment ${i}`));
    const other = pageUrl();
    await parley.request('POST', '/v1/comments', { token: alice, body: { site_id: siteId, thread_url: other, content: 'elsewhere' } });
    expect(await recent('&limit=2')).toHaveLength(2);
    expect((await recent(`&thread_url=${encodeURIComponent(other)}`)).map((c) => c.content)).toEqual(['elsewhere']);
    expect(await recent(`&thread_url=${encodeURIComponent(pageUrl())}`)).toEqual([]);
    expect((await recent()).map((c) => c.content)).toEqual(['elsewhere', 'comment 2', 'comment 1', 'comment 0']);
    expect((await parley.request('GET', `/v1/comments/recent?site_id=${siteId}&limit=51`)).status).toBe(400);
    expect((await parley.request('GET', `/v1/comments/recent?site_id=${siteId}&thread_url=nope`)).status).toBe(400);
    expect((await parley.request('GET', '/v1/comments/recent?site_id=site_none')).status).toBe(404);
  });

  it('still find the newest visible comments under many hidden replies', async () => {
    const { alice, bob, post, recent, moderate } = await thread();
    const visible = await post(alice, 'visible');
    const hidden = await post(alice, 'to be removed');
    for (let i = 0; i < 25; i++) await post(bob, `under a removed comment ${i}`, hidden);
    await moderate(hidden, 'remove');
    expect((await recent('&limit=1')).map((c) => c.id)).toEqual([visible]);
  });
});

describe('Atom feeds', () => {
  it("read back as Atom: the thread's comments, linked to their place in the widget", async () => {
    const { alice, bob, post, url, threadFeed, siteId } = await thread();
    const first = await post(alice, 'Hello <there> & **all**');
    await post(bob, 'Second', first);
    const { parsed, xml } = await feed(threadFeed);
    expect(parsed.meta.type).toBe('atom');
    expect(parsed.title).toBe(`Comments on ${url}`);
    expect(parsed.url).toBe(url);
    expect(parsed.items.map((item) => item.title)).toEqual([`Bob on ${url}`, `Alice on ${url}`]);
    const [, hello] = parsed.items;
    expect(hello.url).toBe(`${url}#parley_comment=${first}`);
    expect(hello.authors.map((author) => author.name)).toEqual(['Alice']);
    expect(hello.content).toContain('<strong>all</strong>');
    // The comment's own HTML escapes its text, and the feed escapes that HTML once more.
    expect(xml).toContain('Hello &amp;lt;there&amp;gt; &amp;amp;');
    expect(hello.id).toMatch(/^tag:127\.0\.0\.1,\d{4}-\d\d-\d\d:/);
    expect(hello.published?.toISOString()).toBeDefined();
    expect(xml).toContain(`<link rel="self" type="application/atom+xml" href="${parley.config.publicUrl}/v1/feeds/thread.atom?site_id=${siteId}`);
  });

  it('hold no hidden comment, in the thread feed or the site feed', async () => {
    const { alice, bob, post, moderate, threadFeed, siteFeed } = await thread();
    const kept = await post(alice, 'kept');
    const removed = await post(bob, 'removed');
    await post(alice, 'under the removed one', removed);
    await moderate(removed, 'remove');
    for (const path of [threadFeed, siteFeed]) {
      const { parsed } = await feed(path);
      expect(parsed.items.map((item) => item.content)).toEqual(['<p>kept</p>']);
      expect(parsed.items[0].url).toContain(kept);
    }
  });

  it('answer 304 to a reader that has the current feed, by entity tag or by date', async () => {
    const { alice, post, threadFeed } = await thread();
    await post(alice, 'one');
    const { response } = await feed(threadFeed);
    const etag = response.headers.get('etag')!;
    const lastModified = response.headers.get('last-modified')!;
    expect(new Date(lastModified).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect((await fetch(parley.url + threadFeed, { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await fetch(parley.url + threadFeed, { headers: { 'if-modified-since': lastModified } })).status).toBe(304);
    // A new comment a second later moves both.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await post(alice, 'two');
    expect((await fetch(parley.url + threadFeed, { headers: { 'if-none-match': etag } })).status).toBe(200);
    expect((await fetch(parley.url + threadFeed, { headers: { 'if-modified-since': lastModified } })).status).toBe(200);
  });

  it("are titled in the site's language, with the thread's title", async () => {
    const { site, alice, post, url, threadFeed, siteFeed } = await thread();
    await post(alice, 'Hallo');
    expect((await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { language: 'de' } })).status).toBe(200);
    const row = await parley.app.db.kysely.selectFrom('threads').select('id').where('site_id', '=', site.site_id).where('url_key', '=', url).executeTakeFirstOrThrow();
    expect((await parley.request('PATCH', `/api/sites/${site.site_id}/threads/${row.id}`, { token: site.api_key, body: { title: 'Mein Beitrag' } })).status).toBe(200);
    const { parsed, xml } = await feed(threadFeed);
    expect(xml).toContain('xml:lang="de"');
    expect(parsed.title).toBe('Kommentare zu Mein Beitrag');
    expect(parsed.items[0].title).toBe('Kommentar von Alice zu Mein Beitrag');
    expect((await feed(siteFeed)).parsed.title).toBe('Kommentare auf Test site');
  });

  it('refuse an invalid thread URL and an unknown site, and answer an empty feed for a thread without comments', async () => {
    const { siteId } = await thread();
    expect((await parley.request('GET', `/v1/feeds/thread.atom?site_id=${siteId}&thread_url=nope`)).status).toBe(400);
    expect((await parley.request('GET', '/v1/feeds/site.atom?site_id=site_none')).status).toBe(404);
    const { parsed } = await feed(`/v1/feeds/thread.atom?site_id=${siteId}&thread_url=${encodeURIComponent(pageUrl())}`);
    expect(parsed.items).toEqual([]);
  });

  it('write any name or text as well-formed XML, dropping the control characters XML forbids', () => {
    const escaped = escapeXml('A\u0001 <b> & "q" \u000b\ttab\n');
    expect(escaped).toBe('A &lt;b&gt; &amp; &quot;q&quot; \ttab\n');
    wellFormed(`<x a="${escaped}">${escaped}</x>`);
  });
});
