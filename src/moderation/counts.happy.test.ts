import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { finishedImport, uploadImport } from '../../test/imports.ts';

let parley: TestParley;
let site: { account_id: string; site_id: string; api_key: string };
let second: string;

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite({ moderation: 'guests' });
  second = (await parley.request('POST', '/api/sites', { token: site.api_key, body: { name: 'Second blog', moderation_mode: 'guests' } })).body.id;
});
afterAll(() => parley.close());

async function post(siteId: string, guest: boolean) {
  const response = await parley.request('POST', '/v1/comments', {
    token: guest ? undefined : site.api_key,
    body: { site_id: siteId, thread_url: pageUrl(), content: 'a comment', author_name: guest ? 'Guest' : undefined },
  });
  expect(response.status).toBe(201);
  return response.body.id as string;
}
const moderate = (id: string, action: string) => parley.request('PATCH', `/v1/comments/${id}/moderate`, { token: site.api_key, body: { action } });
const counts = (query = '', token = site.api_key) => parley.request('GET', `/api/comments/counts${query}`, { token });

/** How many comments each tab of the queue lists for the site. */
async function queueTabs(siteId: string, token = site.api_key) {
  const tabs: Record<string, number> = {};
  for (const tab of ['pending', 'flagged', 'spam', 'removed']) {
    const page = await parley.request('GET', `/api/comments?site_id=${siteId}&status=${tab}&limit=100`, { token });
    expect(page.body.next_cursor).toBeNull();
    tabs[tab] = page.body.comments.length;
  }
  return tabs;
}

/** The site's counts equal the queue's tabs; returns them. */
async function agreeWithQueue(siteId: string, token = site.api_key) {
  const tabs = await queueTabs(siteId, token);
  expect((await counts(`?site_id=${siteId}`, token)).body).toEqual(tabs);
  return tabs;
}

describe("the queue's tab counts", () => {
  it('count pending, flagged, spam and removed comments of one site, or of every site the caller moderates', async () => {
    expect((await counts()).body).toEqual({ pending: 0, flagged: 0, spam: 0, removed: 0 });
    await post(site.site_id, true);
    await post(site.site_id, true);
    const flagged = await post(site.site_id, false);
    await parley.request('POST', `/v1/comments/${flagged}/flag`, { body: { reason: 'rude' } });
    await moderate(await post(site.site_id, false), 'spam');
    await moderate(await post(site.site_id, false), 'remove');
    await post(site.site_id, false);
    await post(second, true);
    // A deleted pending comment waits for nobody.
    const deleted = await post(second, true);
    expect((await parley.request('DELETE', `/v1/comments/${deleted}`, { token: site.api_key })).status).toBe(200);

    const one = await counts(`?site_id=${site.site_id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ pending: 2, flagged: 1, spam: 1, removed: 1 });
    expect((await counts()).body).toEqual({ pending: 3, flagged: 1, spam: 1, removed: 1 });
  });

  it('agree with the queue: removing a flagged comment moves it from flagged to removed', async () => {
    const before = (await counts(`?site_id=${site.site_id}`)).body;
    const flagged = await post(site.site_id, false);
    await parley.request('POST', `/v1/comments/${flagged}/flag`, { body: {} });
    expect((await counts(`?site_id=${site.site_id}`)).body).toEqual({ ...before, flagged: before.flagged + 1 });
    await moderate(flagged, 'remove');
    expect((await counts(`?site_id=${site.site_id}`)).body).toEqual({ ...before, removed: before.removed + 1 });
    const queue = await parley.request('GET', `/api/comments?site_id=${site.site_id}&status=removed&limit=100`, { token: site.api_key });
    expect(queue.body.comments.length).toBe(before.removed + 1);
  });

  it('are refused for a site of another account (404) and without a credential (401)', async () => {
    const stranger = await parley.newSite();
    expect((await counts(`?site_id=${stranger.site_id}`)).status).toBe(404);
    expect((await parley.request('GET', '/api/comments/counts')).status).toBe(401);
  });

  it('agree with the queue through holds, flags, moderation, edits and deletions, and leave with their site', async () => {
    const siteId = (await parley.request('POST', '/api/sites', { token: site.api_key, body: { name: 'Busy blog', moderation_mode: 'guests' } })).body.id as string;
    const reader = (id: string) => parley.signIn(site.api_key, siteId, { id, name: id });
    const [ann, bob, cy] = await Promise.all(['ann', 'bob', 'cy'].map(reader));
    const [first, second] = [pageUrl(), pageUrl()];
    const write = async (token: string | undefined, content: string, thread = first, parent_id?: string) => {
      const body = { site_id: siteId, thread_url: thread, content, parent_id, author_name: token ? undefined : 'Guest' };
      const response = await parley.request('POST', '/v1/comments', { token, body });
      expect(response.status).toBe(201);
      return response.body as { id: string; status: string };
    };
    const act = async (id: string, action: string) => expect((await moderate(id, action)).status).toBe(200);
    const flag = async (id: string, token: string) => expect((await parley.request('POST', `/v1/comments/${id}/flag`, { token, body: {} })).status).toBe(200);

    const [welcome, rude, dull, late] = [await write(ann, 'Welcome'), await write(bob, 'Rude words', second), await write(cy, 'Dull'), await write(ann, 'Late', second)];
    const guests = [await write(undefined, 'A guest'), await write(undefined, 'Another guest', second), await write(undefined, 'A guest replying', first, welcome.id)];
    await flag(rude.id, ann);
    await flag(rude.id, cy); // a second flag leaves it one flagged comment
    await flag(dull.id, bob);
    expect(await agreeWithQueue(siteId)).toEqual({ pending: 3, flagged: 2, spam: 0, removed: 0 });

    // The spam checks hold a comment past the thread's pace.
    expect((await parley.request('PATCH', `/api/sites/${siteId}`, { token: site.api_key, body: { spam: { thread_per_minute: 1 } } })).status).toBe(200);
    const third = pageUrl();
    await write(bob, 'Quick', third);
    const held = await write(cy, 'Quicker', third);
    expect(held.status).toBe('pending');
    expect(await agreeWithQueue(siteId)).toEqual({ pending: 4, flagged: 2, spam: 0, removed: 0 });

    await act(guests[0].id, 'approve');
    await act(guests[1].id, 'spam');
    await act(rude.id, 'remove');
    await act(late.id, 'spam');
    await act(late.id, 'approve');
    const bulk = await parley.request('POST', '/api/comments/moderate', { token: site.api_key, body: { ids: [dull.id, held.id], action: 'dismiss_flags' } });
    expect(bulk.status).toBe(200);
    expect(await agreeWithQueue(siteId)).toEqual({ pending: 2, flagged: 0, spam: 1, removed: 1 });

    // An edit the site holds goes back to pending; deleted comments leave every tab.
    expect((await parley.request('PATCH', `/api/sites/${siteId}`, { token: site.api_key, body: { moderation_mode: 'all' } })).status).toBe(200);
    expect((await parley.request('PATCH', `/v1/comments/${welcome.id}`, { token: ann, body: { content: 'Welcome, edited' } })).body.status).toBe('pending');
    await flag(late.id, bob);
    expect(await agreeWithQueue(siteId)).toEqual({ pending: 3, flagged: 1, spam: 1, removed: 1 });
    for (const id of [guests[2].id, late.id, rude.id]) expect((await parley.request('DELETE', `/v1/comments/${id}`, { token: site.api_key })).status).toBe(200);
    const busy = await agreeWithQueue(siteId);
    expect(busy).toEqual({ pending: 2, flagged: 0, spam: 1, removed: 0 });

    // Every site's counts lose a deleted site's.
    const everySite = (await counts()).body;
    expect((await parley.request('DELETE', `/api/sites/${siteId}`, { token: site.api_key, body: { confirm: siteId } })).status).toBe(200);
    expect((await counts()).body).toEqual({
      pending: everySite.pending - busy.pending,
      flagged: everySite.flagged - busy.flagged,
      spam: everySite.spam - busy.spam,
      removed: everySite.removed - busy.removed,
    });
  });

  it("count an import's held and spam comments", async () => {
    const imported = await parley.newSite();
    const started = await uploadImport(parley, imported.site_id, imported.api_key, readFileSync(join(import.meta.dirname, '../transfer/fixtures/disqus.xml')));
    const job = await finishedImport(parley, imported.site_id, imported.api_key, started.body.id);
    expect(job.report.comments.by_status).toMatchObject({ pending: 1, spam: 1 });
    expect(await agreeWithQueue(imported.site_id, imported.api_key)).toEqual({ pending: 1, flagged: 0, spam: 1, removed: 0 });
  });
});
