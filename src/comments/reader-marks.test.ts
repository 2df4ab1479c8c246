import { describe, expect, it } from 'vitest';
import { dialectName, parleysPerTest, threadWithUsers, twoInstances } from '../../test/helper.ts';

// A session reader's list is the public's list with their own votes and reactions written in. Their
// marks are kept by their marks revision (src/comments/reader-marks.ts), which every vote and
// reaction of theirs moves: these tests read again and again after each write, so that a kept mark
// that should have been dropped would show.
const parleyWith = parleysPerTest();

const marksOf = (comment: { user_vote: unknown; user_reaction: unknown }) => ({ vote: comment.user_vote, reaction: comment.user_reaction });

describe("a reader's own marks on a list", () => {
  it('follow every vote and reaction of theirs, read after read, and no one else’s', async () => {
    const parley = await parleyWith();
    const { alice, bob, path, post, write } = await threadWithUsers(parley);
    const reply = await post(alice, 'a reply', await post(alice, 'top'));
    // Alice's vote and reaction first, so that Bob's reads look his marks up and find none.
    await write('POST', `/v1/comments/${reply}/vote`, alice, { vote_type: 'up' });
    await write('POST', `/v1/comments/${reply}/react`, alice, { reaction_type: 'interesting' });
    const bobSees = async () => {
      const first = marksOf((await parley.request('GET', path, { token: bob })).body.comments[0].replies[0]);
      expect(marksOf((await parley.request('GET', path, { token: bob })).body.comments[0].replies[0])).toEqual(first);
      return first;
    };
    expect(await bobSees()).toEqual({ vote: null, reaction: null });

    await write('POST', `/v1/comments/${reply}/vote`, bob, { vote_type: 'up' });
    expect(await bobSees()).toEqual({ vote: 'up', reaction: null });
    await write('POST', `/v1/comments/${reply}/vote`, bob, { vote_type: 'down' });
    expect(await bobSees()).toEqual({ vote: 'down', reaction: null });
    await write('POST', `/v1/comments/${reply}/react`, bob, { reaction_type: 'funny' });
    expect(await bobSees()).toEqual({ vote: 'down', reaction: 'funny' });
    await write('POST', `/v1/comments/${reply}/react`, bob, { reaction_type: 'insightful' });
    expect(await bobSees()).toEqual({ vote: 'down', reaction: 'insightful' });
    await write('DELETE', `/v1/comments/${reply}/vote`, bob);
    expect(await bobSees()).toEqual({ vote: null, reaction: 'insightful' });
    await write('POST', `/v1/comments/${reply}/react`, bob, { reaction_type: 'insightful' });
    expect(await bobSees()).toEqual({ vote: null, reaction: null });

    // Alice's marks change; Bob's stay as they are, and Alice sees her own.
    await write('POST', `/v1/comments/${reply}/vote`, bob, { vote_type: 'up' });
    await write('POST', `/v1/comments/${reply}/vote`, alice, { vote_type: 'down' });
    expect(await bobSees()).toEqual({ vote: 'up', reaction: null });
    expect(marksOf((await parley.request('GET', path, { token: alice })).body.comments[0].replies[0])).toEqual({ vote: 'down', reaction: 'interesting' });
  });

  it('show an earlier vote on a comment that moves onto the page being read', async () => {
    const parley = await parleyWith();
    const { alice, bob, moderator, path, post, write } = await threadWithUsers(parley);
    const [oldest, middle] = [await post(alice, 'oldest'), await post(alice, 'middle')];
    await post(alice, 'newest');
    await write('POST', `/v1/comments/${oldest}/vote`, bob, { vote_type: 'up' });
    await write('POST', `/v1/comments/${middle}/vote`, alice, { vote_type: 'up' });
    const secondPage = async () => {
      const [comment] = (await parley.request('GET', `${path}&limit=1&page=2`, { token: bob })).body.comments;
      return { content: comment.content, vote: comment.user_vote };
    };
    expect(await secondPage()).toEqual({ content: 'middle', vote: null });
    expect(await secondPage()).toEqual({ content: 'middle', vote: null });
    await write('PATCH', `/v1/comments/${middle}/moderate`, moderator, { action: 'remove' });
    expect(await secondPage()).toEqual({ content: 'oldest', vote: 'up' });
  });

  it("read again, follow the public page under them, with an entity tag that moves with it", async () => {
    const parley = await parleyWith();
    const { alice, bob, path, post, write } = await threadWithUsers(parley);
    const top = await post(alice, 'top');
    await write('POST', `/v1/comments/${top}/vote`, bob, { vote_type: 'up' });
    const read = (etag?: string) => parley.request('GET', path, { token: bob, headers: etag ? { 'if-none-match': etag } : {} });
    const shown = (list: { body: { comments: { content: string; user_vote: unknown; upvotes: number; user_is_author: boolean }[] } }) =>
      list.body.comments.map((comment) => [comment.content, comment.user_vote, comment.upvotes, comment.user_is_author]);
    const first = await read();
    expect(shown(first)).toEqual([['top', 'up', 1, false]]);
    expect((await read(first.headers.get('etag')!)).status).toBe(304);

    // Alice's vote moves the public page, not Bob's marks.
    await write('POST', `/v1/comments/${top}/vote`, alice, { vote_type: 'up' });
    const second = await read(first.headers.get('etag')!);
    expect(second.status).toBe(200);
    expect(shown(second)).toEqual([['top', 'up', 2, false]]);
    await post(bob, 'his own');
    expect(shown(await read())).toEqual([
      ['his own', null, 0, true],
      ['top', 'up', 2, false],
    ]);
    expect(shown(await read())).toEqual([
      ['his own', null, 0, true],
      ['top', 'up', 2, false],
    ]);
  });
});

// Two instances on one PostgreSQL database without Redis: the reading instance keeps the reader's
// marks and is never told of the writes made through the other.
describe.runIf(dialectName === 'postgres')("a reader's own marks, across instances", () => {
  it("show the reader's vote made through another instance on the next read", async () => {
    await twoInstances(async (writer, reader) => {
      const { alice, bob, path, post, write } = await threadWithUsers(writer);
      const top = await post(alice, 'top');
      await write('POST', `/v1/comments/${top}/vote`, alice, { vote_type: 'up' });
      const bobSees = async () => (await reader.request('GET', path, { token: bob })).body.comments[0].user_vote;
      expect(await bobSees()).toBeNull();
      expect(await bobSees()).toBeNull();
      await write('POST', `/v1/comments/${top}/vote`, bob, { vote_type: 'down' });
      expect(await bobSees()).toBe('down');
      await write('DELETE', `/v1/comments/${top}/vote`, bob);
      expect(await bobSees()).toBeNull();
    });
  });
});
