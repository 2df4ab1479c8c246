import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, threadWithUsers, type TestParley } from '../../test/helper.ts';

let parley: TestParley;

beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

const pin = (id: string, token: string) => parley.request('POST', `/v1/comments/${id}/pin`, { token });

describe('pinning, refused', () => {
  it('refuses a reply with 409, saying only top-level comments are pinned', async () => {
    const { site, alice, post } = await threadWithUsers(parley);
    const reply = await post(alice, 'a reply', await post(alice, 'top'));
    const refused = await pin(reply, site.api_key);
    expect(refused.status).toBe(409);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ code: 'conflict', detail: 'Only top-level comments can be pinned; this comment is a reply' });
  });

  it('refuses a fourth pin in a thread with 409 until one is unpinned', async () => {
    const { site, alice, post } = await threadWithUsers(parley);
    const ids: string[] = [];
    for (let i = 1; i <= 4; i++) ids.push(await post(alice, `comment ${i}`));
    for (const id of ids.slice(0, 3)) expect((await pin(id, site.api_key)).status).toBe(200);
    const fourth = await pin(ids[3], site.api_key);
    expect(fourth.status).toBe(409);
    expect(fourth.body.detail).toBe('A thread holds at most 3 pinned comments: unpin one before pinning another');
    // Pinning one of the three again is no fourth.
    expect((await pin(ids[0], site.api_key)).status).toBe(200);
    await parley.request('DELETE', `/v1/comments/${ids[0]}/pin`, { token: site.api_key });
    expect((await pin(ids[3], site.api_key)).status).toBe(200);
  });

  it('lets 3 of 8 pins sent at once through, and refuses the others with 409', async () => {
    const { site, alice, path, post } = await threadWithUsers(parley);
    const ids: string[] = [];
    for (let i = 1; i <= 8; i++) ids.push(await post(alice, `comment ${i}`));
    const answers = await Promise.all(ids.map((id) => pin(id, site.api_key)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 409, 409, 409, 409, 409]);
    const list = await parley.request('GET', path);
    expect(list.body.comments.filter((comment: { pinned: boolean }) => comment.pinned)).toHaveLength(3);
  });

  it('refuses to pin a deleted comment with 409, and unpins one', async () => {
    const { site, alice, post } = await threadWithUsers(parley);
    const gone = await post(alice, 'soon gone');
    const pinnedThenGone = await post(alice, 'pinned, then gone');
    await pin(pinnedThenGone, site.api_key);
    for (const id of [gone, pinnedThenGone]) await parley.request('DELETE', `/v1/comments/${id}`, { token: alice });
    expect((await pin(gone, site.api_key)).body).toMatchObject({ status: 409, detail: 'A deleted comment cannot be pinned' });
    expect((await parley.request('DELETE', `/v1/comments/${pinnedThenGone}/pin`, { token: site.api_key })).body).toMatchObject({ pinned: false });
  });

  it('answers 404 for an unknown comment and 401 without a credential', async () => {
    const { site, alice, post } = await threadWithUsers(parley);
    expect((await pin('cmt_unknown', site.api_key)).status).toBe(404);
    expect((await parley.request('POST', `/v1/comments/${await post(alice, 'x')}/pin`)).status).toBe(401);
  });
});
