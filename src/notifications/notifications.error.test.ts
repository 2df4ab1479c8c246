import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type TestParley } from '../../test/helper.ts';
import { readersSite } from './notifications.fixture.ts';

let parley: TestParley;
beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

describe('requests the follows and notifications endpoints refuse', () => {
  it('answers 400 with the field at fault', async () => {
    const { site_id, reader } = await readersSite(parley);
    const ann = await reader('Ann');
    const refused = [
      ['POST', '/v1/follows', { site_id, thread_url: 'https://elsewhere.example.org/page' }, 'body/thread_url'],
      ['POST', '/v1/follows', { site_id, thread_url: 'not a url' }, 'body/thread_url'],
      ['POST', '/v1/follows', { site_id }, 'body/thread_url'],
      ['GET', `/v1/notifications?site_id=${site_id}&limit=101`, undefined, 'querystring/limit'],
      ['GET', `/v1/notifications?site_id=${site_id}&cursor=nonsense`, undefined, 'querystring/cursor'],
      ['GET', `/v1/follows?site_id=${site_id}&cursor=nonsense`, undefined, 'querystring/cursor'],
      ['POST', '/v1/notifications/read', { site_id, ids: [] }, 'body/ids'],
      ['POST', '/v1/notifications/read', { site_id, ids: Array.from({ length: 101 }, (_, i) => `ntf_${i}`) }, 'body/ids'],
      ['POST', '/v1/notifications/read', { site_id }, 'body'],
      ['POST', '/v1/notifications/read', { site_id, ids: ['ntf_x'], all: true }, 'body'],
    ] as const;
    for (const [method, path, body, at] of refused) {
      const response = await parley.request(method, path, { token: ann.token, body });
      expect(response.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(response.body.errors.map((error: { path: string }) => error.path), path).toContain(at);
    }
  });

  it("answers 404 for a follow that is not there, and a cursor of the other list is refused", async () => {
    const { site_id, reader } = await readersSite(parley);
    const ann = await reader('Ann');
    expect((await parley.request('DELETE', '/v1/follows/fol_none', { token: ann.token })).status).toBe(404);
    const follow = await ann.follow();
    expect((await parley.request('DELETE', `/v1/follows/${follow.id}`, { token: ann.token })).status).toBe(204);
    expect((await parley.request('DELETE', `/v1/follows/${follow.id}`, { token: ann.token })).status).toBe(404);
    const followsCursor = Buffer.from(JSON.stringify(['follows-newest', 'fol_z'])).toString('base64url');
    expect((await parley.request('GET', `/v1/notifications?site_id=${site_id}&cursor=${followsCursor}`, { token: ann.token })).status).toBe(400);
  });
});
