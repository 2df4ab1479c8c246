import { describe, expect, it } from 'vitest';
import { dialectName, parleysPerTest, threadWithUsers, twoInstances, type TestParley } from '../../test/helper.ts';

// Public lists are assembled from parts kept by revision (src/comments/public-list.ts): each
// top-level comment's serialised subtree by its subtree_revision, a time-sorted page's top-level ids
// by the thread's listing_revision. These tests turn the page cache off (PARLEY_RESPONSE_CACHE_MB=0),
// so every read is assembled and only the kept parts stand between a write and what the public sees.
const parleyWith = parleysPerTest();
const PAGE_CACHE_OFF = { PARLEY_RESPONSE_CACHE_MB: '0' };

async function threadOn(parley: TestParley) {
  const thread = await threadWithUsers(parley);
  const publicList = async () => (await parley.request('GET', thread.path)).body;
  return { ...thread, publicList };
}

/** The deepest comment of the first top-level comment's first chain of replies. */
function deepest(list: any): any {
  let comment = list.comments[0];
  while (comment.replies.length > 0) comment = comment.replies[0];
  return comment;
}

describe('lists assembled from kept subtrees', () => {
  it('show every kind of write to a reply deep in a subtree on the next read', async () => {
    const parley = await parleyWith(PAGE_CACHE_OFF);
    const { alice, bob, moderator, post, write, publicList } = await threadOn(parley);
    const top = await post(alice, 'top');
    const middle = await post(alice, 'middle', top);
    const deep = await post(bob, 'deep', middle);
    expect(deepest(await publicList())).toMatchObject({ id: deep, content: 'deep', upvotes: 0 });

    await write('POST', `/v1/comments/${deep}/vote`, alice, { vote_type: 'up' });
    expect(deepest(await publicList())).toMatchObject({ id: deep, upvotes: 1 });
    await write('POST', `/v1/comments/${deep}/react`, alice, { reaction_type: 'funny' });
    expect(deepest(await publicList()).reaction_counts).toEqual({ funny: 1 });
    await write('PATCH', `/v1/comments/${deep}`, bob, { content: 'deep, edited' });
    expect(deepest(await publicList())).toMatchObject({ content: 'deep, edited', is_edited: true });

    const deeper = await post(alice, 'deeper', deep);
    expect(deepest(await publicList())).toMatchObject({ id: deeper, content: 'deeper' });
    await write('DELETE', `/v1/comments/${deeper}`, alice);
    expect(deepest(await publicList())).toMatchObject({ id: deep });

    await write('PATCH', `/v1/comments/${deep}/moderate`, moderator, { action: 'remove' });
    expect(deepest(await publicList())).toMatchObject({ id: middle });
    await write('PATCH', `/v1/comments/${deep}/moderate`, moderator, { action: 'approve' });
    expect(deepest(await publicList())).toMatchObject({ id: deep });

    // A shadow ban changes every comment of the author at once, the reply among them.
    await write('PATCH', `/v1/comments/${deep}/moderate`, moderator, { action: 'shadow_ban' });
    expect(deepest(await publicList())).toMatchObject({ id: middle });
    await write('PATCH', `/v1/comments/${deep}/moderate`, moderator, { action: 'unhide' });
    expect(deepest(await publicList())).toMatchObject({ id: deep, content: 'deep, edited', upvotes: 1 });
  });

  it('shift the pages sorted by time when a top-level comment comes, goes or returns', async () => {
    const parley = await parleyWith(PAGE_CACHE_OFF);
    const { alice, moderator, path, post } = await threadOn(parley);
    const ids: string[] = [];
    for (const n of [1, 2, 3, 4, 5]) ids.push(await post(alice, `c${n}`));
    const second = async (sort: string) =>
      (await parley.request('GET', `${path}&limit=2&page=2&sort=${sort}`)).body.comments.map((comment: { content: string }) => comment.content);
    expect([await second('newest'), await second('oldest')]).toEqual([['c3', 'c2'], ['c3', 'c4']]);

    await post(alice, 'c6');
    expect([await second('newest'), await second('oldest')]).toEqual([['c4', 'c3'], ['c3', 'c4']]);
    await parley.request('PATCH', `/v1/comments/${ids[3]}/moderate`, { token: moderator, body: { action: 'remove' } });
    expect([await second('newest'), await second('oldest')]).toEqual([['c3', 'c2'], ['c3', 'c5']]);
    await parley.request('PATCH', `/v1/comments/${ids[3]}/moderate`, { token: moderator, body: { action: 'approve' } });
    expect(await second('newest')).toEqual(['c4', 'c3']);
    await parley.request('DELETE', `/v1/comments/${ids[4]}`, { token: alice });
    expect(await second('newest')).toEqual(['c3', 'c2']);
  });

  it('are byte for byte the list the response schema writes', async () => {
    const parley = await parleyWith(PAGE_CACHE_OFF);
    const { site, alice, bob, path, post } = await threadOn(parley);
    const first = await post(alice, 'first, to be deleted: its replies keep it as a placeholder');
    const reply = await post(bob, 'a reply', first);
    await post(alice, 'a reply to the reply: "quoted" \\ text, ünïcödé, emoji 🎉', reply);
    await post(bob, 'second, with a line\nbreak and a\ttab');
    await parley.request('POST', `/v1/comments/${reply}/vote`, { token: alice, body: { vote_type: 'down' } });
    await parley.request('DELETE', `/v1/comments/${first}`, { token: alice });
    // Twice, so the second read is assembled from kept subtrees.
    for (let i = 0; i < 2; i++) {
      const assembled = await fetch(parley.url + path).then((response) => response.text());
      // The site's admin key moderates: its list is read for it alone and written by the serialiser,
      // and it has no marks here, so it must be the same bytes.
      const serialised = await fetch(parley.url + path, { headers: { authorization: `Bearer ${site.api_key}` } }).then((response) => response.text());
      expect(assembled).toBe(serialised);
    }
  });
});

// Two instances on one PostgreSQL database without Redis: neither hears the other's writes, so the
// page cache stays off, but kept subtrees are checked against the database's revisions.
describe.runIf(dialectName === 'postgres')('lists assembled from kept subtrees, across instances', () => {
  it("show another instance's writes to a reply on the next read", async () => {
    await twoInstances(async (writer, reader) => {
      const { alice, path, post } = await threadOn(writer);
      const reply = await post(alice, 'reply', await post(alice, 'top'));
      const readReply = async () => (await reader.request('GET', path)).body.comments[0].replies[0];
      expect(await readReply()).toMatchObject({ id: reply, upvotes: 0 });
      expect(await readReply()).toMatchObject({ id: reply, upvotes: 0 });
      await writer.request('POST', `/v1/comments/${reply}/vote`, { token: alice, body: { vote_type: 'up' } });
      expect(await readReply()).toMatchObject({ id: reply, upvotes: 1 });
      await writer.request('PATCH', `/v1/comments/${reply}`, { token: alice, body: { content: 'edited elsewhere' } });
      expect(await readReply()).toMatchObject({ id: reply, content: 'edited elsewhere' });

      const secondPage = async () => (await reader.request('GET', `${path}&limit=1&page=2`)).body.comments[0]?.content;
      expect(await secondPage()).toBeUndefined();
      await post(alice, 'a newer top-level comment');
      expect(await secondPage()).toBe('top');
    });
  });
});
