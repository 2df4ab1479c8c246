import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, threadWithUsers, type TestParley } from '../../test/helper.ts';

let parley: TestParley;

beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

describe("a site user's labels", () => {
  it("show on the user's profile and, after the badges each comment was written with, on all their comments at once", async () => {
    const { site, alice, moderator, path, post } = await threadWithUsers(parley);
    const before = await post(alice, 'written before the labels');
    const byModerator = await post(moderator, 'written by a moderator');
    const aliceId = (await parley.request('GET', '/v1/me', { token: alice })).body.user.id;
    const moId = (await parley.request('GET', '/v1/me', { token: moderator })).body.user.id;
    const badgesOf = async () =>
      Object.fromEntries((await parley.request('GET', path)).body.comments.map((comment: { id: string; author_badges: string[] }) => [comment.id, comment.author_badges]));
    expect(await badgesOf()).toEqual({ [before]: ['verified'], [byModerator]: ['moderator', 'verified'] });

    const labelled = await parley.request('PATCH', `/api/sites/${site.site_id}/users/${aliceId}`, { token: site.api_key, body: { labels: ['  Author ', 'Regular', 'Café owner'] } });
    expect(labelled.status).toBe(200);
    expect(labelled.body).toMatchObject({ id: aliceId, name: 'Alice', labels: ['Author', 'Regular', 'Café owner'] });
    await parley.request('PATCH', `/api/sites/${site.site_id}/users/${moId}`, { token: site.api_key, body: { labels: ['Editor'] } });
    // The public's kept list shows them on its next read.
    expect(await badgesOf()).toEqual({ [before]: ['verified', 'Author', 'Regular', 'Café owner'], [byModerator]: ['moderator', 'verified', 'Editor'] });

    // A signed-in reader's new comments carry their labels.
    const after = await parley.request('POST', '/v1/comments', { token: alice, body: { thread_url: new URL(path, 'http://x').searchParams.get('thread_url'), site_id: site.site_id, content: 'written after' } });
    expect(after.body.author_badges).toEqual(['verified', 'Author', 'Regular', 'Café owner']);

    // New labels take the old ones' place; none leaves the written badges alone.
    await parley.request('PATCH', `/api/sites/${site.site_id}/users/${aliceId}`, { token: site.api_key, body: { labels: ['Founder'] } });
    await parley.request('PATCH', `/api/sites/${site.site_id}/users/${moId}`, { token: site.api_key, body: { labels: [] } });
    expect(await badgesOf()).toEqual({ [before]: ['verified', 'Founder'], [byModerator]: ['moderator', 'verified'], [after.body.id]: ['verified', 'Founder'] });
    const profile = await parley.request('GET', `/api/sites/${site.site_id}/users/${aliceId}`, { token: site.api_key });
    expect(profile.body.labels).toEqual(['Founder']);
  });

  it("change only that user's comments on that site", async () => {
    const { site, alice, bob, path, post } = await threadWithUsers(parley);
    const bobs = await post(bob, 'by Bob');
    await post(alice, 'by Alice');
    const aliceId = (await parley.request('GET', '/v1/me', { token: alice })).body.user.id;
    await parley.request('PATCH', `/api/sites/${site.site_id}/users/${aliceId}`, { token: site.api_key, body: { labels: ['Author'] } });
    const list = await parley.request('GET', path);
    expect(list.body.comments.find((comment: { id: string }) => comment.id === bobs).author_badges).toEqual(['verified']);
  });
});
