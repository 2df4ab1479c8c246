import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectName, startParley, threadWithUsers, twoInstances, type TestParley } from '../../test/helper.ts';
import { SORTS } from './repository.ts';

let parley: TestParley;

beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

/** Every page of a list of `limit`, as the pages' ids in order; and each page's size. */
async function readAllPages(on: TestParley, path: string, limit: number, token?: string) {
  const pages: Array<Array<{ id: string; pinned: boolean }>> = [];
  const totals = new Set<number>();
  for (let page = 1; page === 1 || pages.at(-1)!.length > 0; page++) {
    const response = await on.request('GET', `${path}&limit=${limit}&page=${page}`, { token });
    expect(response.status).toBe(200);
    totals.add(response.body.total);
    pages.push(response.body.comments);
  }
  return { ids: pages.flat().map((comment) => comment.id), pages, totals: [...totals] };
}

describe('pinning a comment', () => {
  it('answers the comment marked pinned, twice alike, and unpinning answers it unmarked, twice alike', async () => {
    const { site, alice, post } = await threadWithUsers(parley);
    const id = await post(alice, 'worth reading first');
    for (let i = 0; i < 2; i++) {
      const pinned = await parley.request('POST', `/v1/comments/${id}/pin`, { token: site.api_key });
      expect(pinned.status).toBe(200);
      expect(pinned.body).toMatchObject({ id, content: 'worth reading first', pinned: true });
    }
    for (let i = 0; i < 2; i++) {
      const unpinned = await parley.request('DELETE', `/v1/comments/${id}/pin`, { token: site.api_key });
      expect(unpinned.status).toBe(200);
      expect(unpinned.body).toMatchObject({ id, pinned: false });
    }
  });

  it("is done by a moderator's session too, and logged as moderation is", async () => {
    const { site, alice, moderator, post } = await threadWithUsers(parley);
    const id = await post(alice, 'pinned by a moderator');
    expect((await parley.request('POST', `/v1/comments/${id}/pin`, { token: moderator })).body.pinned).toBe(true);
    expect((await parley.request('DELETE', `/v1/comments/${id}/pin`, { token: moderator })).body.pinned).toBe(false);
    // Pinning again what is pinned changes nothing, and logs nothing.
    await parley.request('DELETE', `/v1/comments/${id}/pin`, { token: moderator });
    const log = await parley.request('GET', `/api/sites/${site.site_id}/moderation-log?comment_id=${id}`, { token: site.api_key });
    expect(log.status).toBe(200);
    expect(log.body.entries.map((entry: { action: string; moderator: { name: string } }) => [entry.action, entry.moderator.name])).toEqual([
      ['unpin', 'Mo'],
      ['pin', 'Mo'],
    ]);
    const pins = await parley.request('GET', `/api/sites/${site.site_id}/moderation-log?action=pin`, { token: site.api_key });
    expect(pins.body.entries.map((entry: { comment: { id: string } }) => entry.comment.id)).toEqual([id]);
  });
});

describe('lists with pinned comments', () => {
  it('lead page 1 of every sort, oldest pin first, for the public, readers and moderators; later pages skip and repeat nothing', async () => {
    const { site, alice, bob, path, post } = await threadWithUsers(parley);
    const ids: string[] = [];
    for (let i = 1; i <= 7; i++) ids.push(await post(i % 2 ? alice : bob, `comment ${i}`));
    await parley.request('POST', `/v1/comments/${ids[3]}/vote`, { token: alice, body: { vote_type: 'up' } });
    await parley.request('POST', `/v1/comments/${ids[5]}/vote`, { token: bob, body: { vote_type: 'down' } });
    // Bob has a comment only he (and moderators) see: his list is read for him alone.
    await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { moderation_mode: 'all' } });
    ids.push(await post(bob, 'held for approval'));
    await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { moderation_mode: 'none' } });

    const viewers = { public: undefined, reader: bob, moderator: site.api_key };
    const before = new Map<string, string[]>();
    for (const sort of SORTS) {
      for (const [name, token] of Object.entries(viewers)) before.set(`${sort} ${name}`, (await readAllPages(parley, `${path}&sort=${sort}`, 100, token)).ids);
    }
    // The held comment is pinned too: the public never sees it, Bob and moderators do.
    for (const id of [ids[4], ids[1], ids[7]]) expect((await parley.request('POST', `/v1/comments/${id}/pin`, { token: site.api_key })).status).toBe(200);

    for (const sort of SORTS) {
      for (const [name, token] of Object.entries(viewers)) {
        const all = before.get(`${sort} ${name}`)!;
        const pinned = [ids[4], ids[1], ids[7]].filter((id) => all.includes(id));
        const { ids: shown, pages, totals } = await readAllPages(parley, `${path}&sort=${sort}`, 3, token);
        expect(shown, `${sort}, ${name}`).toEqual([...pinned, ...all.filter((id) => !pinned.includes(id))]);
        expect(pages[0]).toHaveLength(3);
        expect(pages[0].map((comment) => comment.pinned)).toEqual([true, true, true].map((_, index) => index < pinned.length));
        expect(pages.slice(1).flat().some((comment) => comment.pinned)).toBe(false);
        expect(totals).toEqual([all.length]);
      }
    }
  });

  it('show a pin and an unpin on the next read of the public\'s kept list', async () => {
    const { site, alice, path, post } = await threadWithUsers(parley);
    const older = await post(alice, 'older');
    const newer = await post(alice, 'newer');
    const firstIds = async () => (await parley.request('GET', path)).body.comments.map((comment: { id: string; pinned: boolean }) => [comment.id, comment.pinned]);
    expect(await firstIds()).toEqual([[newer, false], [older, false]]);
    expect(await firstIds()).toEqual([[newer, false], [older, false]]);
    await parley.request('POST', `/v1/comments/${older}/pin`, { token: site.api_key });
    expect(await firstIds()).toEqual([[older, true], [newer, false]]);
    await parley.request('DELETE', `/v1/comments/${older}/pin`, { token: site.api_key });
    expect(await firstIds()).toEqual([[newer, false], [older, false]]);
  });

  it('keep page 1 to its limit when more are pinned than it holds, and show the rest next', async () => {
    const { site, alice, path, post } = await threadWithUsers(parley);
    const ids: string[] = [];
    for (let i = 1; i <= 4; i++) ids.push(await post(alice, `comment ${i}`));
    for (const id of [ids[0], ids[1], ids[2]]) await parley.request('POST', `/v1/comments/${id}/pin`, { token: site.api_key });
    const { ids: shown, pages } = await readAllPages(parley, path, 2);
    expect(pages.map((page) => page.length)).toEqual([2, 2, 0]);
    expect(shown).toEqual([ids[0], ids[1], ids[2], ids[3]]);
  });
});

// Two instances on one PostgreSQL database without Redis: the public's kept page ids are checked
// against the thread's listing revision, which a pin moves.
describe.runIf(dialectName === 'postgres')('pins across instances', () => {
  it("show another instance's pin on the next read", async () => {
    await twoInstances(async (writer, reader) => {
      const { site, alice, path, post } = await threadWithUsers(writer);
      const older = await post(alice, 'older');
      await post(alice, 'newer');
      const first = async () => (await reader.request('GET', `${path}&limit=1`)).body.comments[0];
      expect(await first()).toMatchObject({ content: 'newer', pinned: false });
      expect(await first()).toMatchObject({ content: 'newer', pinned: false });
      await writer.request('POST', `/v1/comments/${older}/pin`, { token: site.api_key });
      expect(await first()).toMatchObject({ id: older, pinned: true });
      await writer.request('DELETE', `/v1/comments/${older}/pin`, { token: site.api_key });
      expect(await first()).toMatchObject({ content: 'newer', pinned: false });
    });
  });
});
