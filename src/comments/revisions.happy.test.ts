import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, threadWithUsers, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

const revisionsOf = async (id: string, token: string) => {
  const answer = await parley.request('GET', `/api/comments/${id}/revisions`, { token });
  expect(answer.status).toBe(200);
  return answer.body.revisions as Array<{ content: string; content_html: string; written_at: string; replaced_at: string }>;
};

const storedRevisions = (id: string) =>
  parley.app.db.kysely.selectFrom('comment_revisions').select(['comment_id', 'replaced_by']).where('comment_id', '=', id).execute();

describe("a comment's earlier versions", () => {
  it('are kept by every edit, oldest first, with when each was written and replaced, for moderators', async () => {
    const { site, alice, post } = await threadWithUsers(parley);
    const id = await post(alice, 'first **try**');
    expect(await revisionsOf(id, site.api_key)).toEqual([]);
    const editedAt = async (content: string) => {
      expect((await parley.request('PATCH', `/v1/comments/${id}`, { token: alice, body: { content } })).status).toBe(200);
      return (await parley.app.db.kysely.selectFrom('comments').select('updated_at').where('id', '=', id).executeTakeFirstOrThrow()).updated_at;
    };
    const postedAt = (await parley.request('GET', `/v1/comments/${id}`, { token: alice })).body.created_at;
    const [firstEdit, secondEdit] = [await editedAt('second try'), await editedAt('third try')];
    expect(await revisionsOf(id, site.api_key)).toEqual([
      { content: 'first **try**', content_html: '<p>first <strong>try</strong></p>\n', written_at: postedAt, replaced_at: firstEdit },
      { content: 'second try', content_html: '<p>second try</p>\n', written_at: firstEdit, replaced_at: secondEdit },
    ]);
    const aliceId = (await parley.app.db.kysely.selectFrom('site_users').select('id').where('site_id', '=', site.site_id).where('external_id', '=', 'alice').executeTakeFirstOrThrow()).id;
    expect((await storedRevisions(id)).map((row) => row.replaced_by)).toEqual([aliceId, aliceId]);
  });

  it('are not kept by an edit that fails', async () => {
    const { site, alice, post } = await threadWithUsers(parley);
    const id = await post(alice, 'kept as is');
    expect((await parley.request('PATCH', `/v1/comments/${id}`, { token: alice, body: { content: '' } })).status).toBe(400);
    expect(await revisionsOf(id, site.api_key)).toEqual([]);
  });

  it("go when the comment is deleted: what its author took back is not kept behind it", async () => {
    const { site, alice, post } = await threadWithUsers(parley);
    const id = await post(alice, 'regretted');
    await parley.request('PATCH', `/v1/comments/${id}`, { token: alice, body: { content: 'still regretted' } });
    expect(await revisionsOf(id, site.api_key)).toHaveLength(1);
    expect((await parley.request('DELETE', `/v1/comments/${id}`, { token: alice })).status).toBe(200);
    expect(await revisionsOf(id, site.api_key)).toEqual([]);
  });

  it("go when their author is erased, though the comments stay; other authors' stay", async () => {
    const { site, alice, bob, post } = await threadWithUsers(parley);
    const [alices, bobs] = [await post(alice, 'my address is a@example.com'), await post(bob, 'typo')];
    await parley.request('PATCH', `/v1/comments/${alices}`, { token: alice, body: { content: 'no address here' } });
    await parley.request('PATCH', `/v1/comments/${bobs}`, { token: bob, body: { content: 'typo fixed' } });
    const aliceId = (await parley.app.db.kysely.selectFrom('site_users').select('id').where('site_id', '=', site.site_id).where('external_id', '=', 'alice').executeTakeFirstOrThrow()).id;
    expect((await parley.request('DELETE', `/api/sites/${site.site_id}/users/${aliceId}`, { token: site.api_key })).status).toBe(204);
    expect(await revisionsOf(alices, site.api_key)).toEqual([]);
    expect((await parley.request('GET', `/v1/comments/${alices}`, { token: site.api_key })).body).toMatchObject({ content: 'no address here', author_name: 'Deleted user' });
    expect((await revisionsOf(bobs, site.api_key)).map((revision) => revision.content)).toEqual(['typo']);
  });

  it('go with their site', async () => {
    const { site, alice, post } = await threadWithUsers(parley);
    const id = await post(alice, 'before');
    await parley.request('PATCH', `/v1/comments/${id}`, { token: alice, body: { content: 'after' } });
    expect(await storedRevisions(id)).toHaveLength(1);
    expect((await parley.request('DELETE', `/api/sites/${site.site_id}`, { token: site.api_key, body: { confirm: site.site_id } })).status).toBe(200);
    expect(await storedRevisions(id)).toEqual([]);
  });
});
