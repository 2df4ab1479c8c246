import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type TestParley } from '../../test/helper.ts';
import { readersSite } from './notifications.fixture.ts';

let parley: TestParley;
beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

describe("a reader's follows and notifications as their data", () => {
  it('are in their export, and go when they are erased', async () => {
    const { site_id, api_key, url, reader, settled } = await readersSite(parley, { moderationMode: 'all' });
    const [ann, bob] = [await reader('Ann'), await reader('Bob')];
    const follow = await ann.follow();
    const held = await ann.post('Mine, held');
    await settled();

    const file = (await parley.request('GET', '/v1/me/export', { token: ann.token })).body;
    expect(file.follows).toEqual([{ id: follow.id, thread_url: url, created_at: expect.any(String) }]);
    expect(file.notifications).toEqual([
      { id: expect.stringMatching(/^ntf_/), kind: 'moderation', comment_id: held, thread_url: url, action: 'held', reason: null, created_at: expect.any(String), read_at: null },
    ]);
    expect((await parley.request('GET', '/v1/me/export', { token: bob.token })).body).toMatchObject({ follows: [], notifications: [] });

    expect((await parley.request('DELETE', `/api/sites/${site_id}/users/${ann.id}`, { token: api_key })).status).toBe(204);
    const db = parley.app.db.kysely;
    expect(await db.selectFrom('follows').select('id').where('user_id', '=', ann.id).execute()).toEqual([]);
    expect(await db.selectFrom('notifications').select('id').where('user_id', '=', ann.id).execute()).toEqual([]);
  });
});
