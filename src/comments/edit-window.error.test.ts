import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, threadWithUsers, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

/** A site whose edit window is `seconds`, with Alice (a reader), Mo (a moderator) and the site's admin key. */
async function siteWithWindow(seconds: number | null) {
  const users = await threadWithUsers(parley);
  const changed = await parley.request('PATCH', `/api/sites/${users.site.site_id}`, { token: users.site.api_key, body: { edit_window_seconds: seconds } });
  expect(changed.body.edit_window_seconds).toBe(seconds);
  return users;
}

/** Moves a comment's posting time back, as if it had been written `seconds` ago. */
async function postedAgo(id: string, seconds: number) {
  const createdAt = new Date(Date.now() - seconds * 1000).toISOString();
  await parley.app.db.kysely.updateTable('comments').set({ created_at: createdAt }).where('id', '=', id).execute();
  return createdAt;
}

const edit = (id: string, token: string, content = 'edited') => parley.request('PATCH', `/v1/comments/${id}`, { token, body: { content } });

describe("an author's edit window", () => {
  it('lets the author edit inside it, and answers 403 edit_window_closed, saying when it closed, once it has passed', async () => {
    const { alice, post } = await siteWithWindow(900);
    const id = await post(alice, 'first words');
    expect((await edit(id, alice)).status).toBe(200);
    const createdAt = await postedAgo(id, 901);
    const refused = await edit(id, alice, 'too late');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(refused.body.code).toBe('edit_window_closed');
    const closedAt = new Date(Date.parse(createdAt) + 900_000).toISOString();
    expect(refused.body.detail).toBe(`Comments on this site can be edited for 15 minutes after they are posted; this one's edit window closed at ${closedAt}`);
    const shown = await parley.request('GET', `/v1/comments/${id}`, { token: alice });
    expect(shown.body.content).toBe('edited');
  });

  it('with 0, never lets authors edit', async () => {
    const { alice, post } = await siteWithWindow(0);
    const id = await post(alice, 'as posted');
    const refused = await edit(id, alice);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'edit_window_closed', detail: 'Authors cannot edit their comments on this site' });
  });

  it('with null, lets authors edit however old the comment is', async () => {
    const { alice, post } = await siteWithWindow(null);
    const id = await post(alice, 'long ago');
    await postedAgo(id, 10 * 365 * 86_400);
    expect((await edit(id, alice)).status).toBe(200);
  });

  it('never limits moderators: a moderator session and a moderator key edit their own old comments on a site that allows authors no edit', async () => {
    const { site, moderator, post } = await siteWithWindow(0);
    const fromSession = await post(moderator, 'moderator wrote');
    const fromKey = await post(site.api_key, 'key wrote');
    for (const id of [fromSession, fromKey]) await postedAgo(id, 86_400);
    expect((await edit(fromSession, moderator)).status).toBe(200);
    expect((await edit(fromKey, site.api_key)).status).toBe(200);
  });

  it("says nothing of the window to someone who is not the comment's author: theirs is the usual 403", async () => {
    const { alice, bob, post } = await siteWithWindow(0);
    const id = await post(alice, 'mine');
    const refused = await edit(id, bob);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');
  });
});
