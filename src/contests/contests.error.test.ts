import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { account_id: string; site_id: string; api_key: string };
let reader: string;

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
  reader = await parley.signIn(site.api_key, site.site_id, { id: 'reader', name: 'Rita' });
});
afterAll(() => parley.close());

const post = async () => (await parley.request('POST', '/v1/comments', { token: reader, body: { site_id: site.site_id, thread_url: pageUrl(), content: 'mine' } })).body.id as string;
const removed = async () => {
  const id = await post();
  await parley.request('PATCH', `/v1/comments/${id}/moderate`, { token: site.api_key, body: { action: 'remove' } });
  return id;
};
const contest = (id: string, body: unknown = { message: 'please look again' }) => parley.request('POST', `/v1/comments/${id}/contest`, { token: reader, body });
const resolve = (id: string, body: unknown) => parley.request('POST', `/api/contests/${id}/resolve`, { token: site.api_key, body });
const decisionJobs = async (commentId: string) =>
  (await parley.app.db.kysely.selectFrom('notification_jobs').select('id').where('comment_id', '=', commentId).where('kind', '=', 'decision').execute()).length;

describe('contests refused', () => {
  it('a published comment has no decision to contest, nor a deleted one: 409', async () => {
    const published = await post();
    expect((await contest(published)).body).toMatchObject({ status: 409, code: 'conflict' });
    const deleted = await removed();
    await parley.request('DELETE', `/v1/comments/${deleted}`, { token: site.api_key });
    expect((await contest(deleted)).status).toBe(409);
  });

  it('one open contest per comment, and an upheld decision is not contested twice: 409', async () => {
    const id = await removed();
    const first = await contest(id);
    expect(first.status).toBe(201);
    expect((await contest(id)).body).toMatchObject({ status: 409, detail: expect.stringContaining('contested already') });
    await resolve(first.body.id, { outcome: 'upheld' });
    expect((await contest(id)).body).toMatchObject({ status: 409, detail: expect.stringContaining('upheld') });
  });

  it('two contests sent at once: one is taken, the other 409', async () => {
    const id = await removed();
    const statuses = (await Promise.all([contest(id), contest(id), contest(id)])).map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409]);
  });

  it.each([
    ['no message', {}],
    ['an empty one', { message: '   ' }],
    ['one over 2,000 characters', { message: 'x'.repeat(2001) }],
    ['control characters', { message: 'a\u0007b' }],
    ['a message that is not text', { message: 42 }],
  ])('%s: 400 validation_failed', async (_, body) => {
    const response = await contest(await removed(), body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
  });

  it('takes exactly 2,000 characters, counted as characters (not UTF-16 units)', async () => {
    expect((await contest(await removed(), { message: '😀'.repeat(2000) })).status).toBe(201);
  });

  it('an unknown comment: 404', async () => {
    expect((await contest('cmt_missing')).body).toMatchObject({ status: 404, code: 'not_found' });
  });
});

describe('resolving refused', () => {
  it('a contest resolved already: 409, and the reader is told once', async () => {
    const id = await removed();
    const contested = (await contest(id)).body;
    expect((await resolve(contested.id, { outcome: 'upheld' })).status).toBe(200);
    expect((await resolve(contested.id, { outcome: 'reversed' })).body).toMatchObject({ status: 409, code: 'conflict' });
    expect(await decisionJobs(id)).toBe(1);
    // The refused reversal changed nothing.
    const state = await parley.request('GET', `/api/comments?site_id=${site.site_id}&status=removed&limit=100`, { token: site.api_key });
    expect(state.body.comments.some((c: { id: string }) => c.id === id)).toBe(true);
  });

  it('two moderators answering at once: one answer stands, the reader is told once', async () => {
    const id = await removed();
    const contested = (await contest(id)).body;
    const answers = await Promise.all([resolve(contested.id, { outcome: 'reversed' }), resolve(contested.id, { outcome: 'upheld' }), resolve(contested.id, { outcome: 'reversed' })]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    expect(await decisionJobs(id)).toBe(1);
  });

  it.each([
    ['no outcome', {}],
    ['an unknown outcome', { outcome: 'ignored' }],
    ['a note over 500 characters', { outcome: 'upheld', note: 'n'.repeat(501) }],
  ])('%s: 400 validation_failed, the contest still open', async (_, body) => {
    const contested = (await contest(await removed())).body;
    expect((await resolve(contested.id, body)).body).toMatchObject({ status: 400, code: 'validation_failed' });
    const open = await parley.request('GET', `/api/contests?site_id=${site.site_id}&limit=100`, { token: site.api_key });
    expect(open.body.contests.some((c: { id: string }) => c.id === contested.id)).toBe(true);
  });

  it('an unknown contest: 404', async () => {
    expect((await resolve('dcn_missing', { outcome: 'upheld' })).body).toMatchObject({ status: 404, code: 'not_found' });
  });

  it.each([
    ['limit 0', 'limit=0'],
    ['limit 101', 'limit=101'],
    ['an unknown state', 'state=closed'],
    ['a cursor of another list', `cursor=${Buffer.from(JSON.stringify(['log:newest', 'a', 'b'])).toString('base64url')}`],
    ['a cursor of the other state', `state=resolved&cursor=${Buffer.from(JSON.stringify(['contests:open', 'a', 'b'])).toString('base64url')}`],
  ])('the list with %s: 400', async (_, query) => {
    expect((await parley.request('GET', `/api/contests?${query}`, { token: site.api_key })).body).toMatchObject({ status: 400, code: 'validation_failed' });
  });
});

describe('the site contact refused', () => {
  it.each(['http://example.com/appeals', 'javascript:alert(1)', 'write to us', 'mailto:', 'https://user:pw@example.com/', `https://example.com/${'a'.repeat(481)}`, `${'a'.repeat(482)}@example.com`])('%s: 400, unchanged', async (contact) => {
    const response = await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { contact } });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
    expect((await parley.request('GET', `/api/sites/${site.site_id}`, { token: site.api_key })).body.contact).toBeNull();
  });
});
