import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { account_id: string; site_id: string; api_key: string };
let author: string;
let colleague: string;

beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite({ moderation: 'all' });
  author = await parley.signIn(site.api_key, site.site_id, { id: 'author', name: 'Author' });
  colleague = (await parley.request('POST', '/api/keys', { token: site.api_key, body: { role: 'moderator', name: 'colleague' } })).body.api_key;
});
afterAll(() => parley.close());

const pending = async () => (await parley.request('POST', '/v1/comments', { token: author, body: { site_id: site.site_id, thread_url: pageUrl(), content: 'waiting' } })).body.id as string;
const moderate = (ids: string[], action: string, token = site.api_key) => parley.request('POST', '/api/comments/moderate', { token, body: { ids, action } });
const undo = (body: unknown, token = site.api_key) => parley.request('POST', '/api/comments/moderate/undo', { token, body });
const refusal = async (id: string, token = site.api_key) => {
  const response = await undo({ ids: [id] }, token);
  expect(response.status).toBe(200);
  expect(response.body.results[0]).toMatchObject({ id, ok: false, error: { status: 409, code: 'conflict' } });
  return response.body.results[0].error.detail as string;
};
const statusOf = async (id: string) => (await parley.request('GET', `/api/comments?site_id=${site.site_id}&limit=100`, { token: site.api_key })).body.comments.find((c: { id: string }) => c.id === id).status;

describe('undo, refused', () => {
  it.each([
    ['no ids', { ids: [] }],
    ['101 ids', { ids: Array.from({ length: 101 }, (_, i) => `cmt_${i}`) }],
    ['an id twice', { ids: ['cmt_a', 'cmt_a'] }],
    ['an empty id', { ids: [''] }],
    ['no body field', {}],
    ['ids that are not a list', { ids: 'cmt_a' }],
  ])('answers %s with 400', async (_name, body) => {
    const response = await undo(body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
  });

  it('answers an unknown id with its own not_found, and goes ahead with the others', async () => {
    const id = await pending();
    await moderate([id], 'approve');
    const response = await undo({ ids: ['cmt_nope', id] });
    expect(response.body.results.map((result: { ok: boolean; error?: { code: string } }) => result.ok || result.error!.code)).toEqual(['not_found', true]);
  });

  it('refuses a comment no one moderated, and a second undo of one action', async () => {
    const id = await pending();
    expect(await refusal(id)).toMatch(/No moderation action/);
    await moderate([id], 'approve');
    expect((await undo({ ids: [id] })).body.results[0].ok).toBe(true);
    expect(await refusal(id)).toMatch(/undone already/);
    expect(await statusOf(id)).toBe('pending');
  });

  it("refuses another moderator's last action: each undoes only their own", async () => {
    const id = await pending();
    await moderate([id], 'approve');
    await moderate([id], 'remove', colleague);
    expect(await refusal(id)).toMatch(/another moderator's/);
    expect(await statusOf(id)).toBe('removed');
    expect((await undo({ ids: [id] }, colleague)).body.results[0]).toMatchObject({ ok: true, result: { status: 'published' } });
  });

  it('refuses an action more than 60 s old', async () => {
    const id = await pending();
    await moderate([id], 'approve');
    const longAgo = new Date(Date.now() - 61_000).toISOString();
    await parley.app.db.kysely.updateTable('moderation_log').set({ created_at: longAgo }).where('comment_id', '=', id).execute();
    expect(await refusal(id)).toMatch(/more than 60 s old/);
    expect(await statusOf(id)).toBe('published');
  });

  it('refuses when the comment changed since: its author edited or deleted it, or a flag came', async () => {
    const edited = await pending();
    await moderate([edited], 'approve');
    expect((await parley.request('PATCH', `/v1/comments/${edited}`, { token: author, body: { content: 'changed my mind' } })).status).toBe(200);
    expect(await refusal(edited)).toMatch(/changed after the approve/);

    const deleted = await pending();
    await moderate([deleted], 'approve');
    expect((await parley.request('DELETE', `/v1/comments/${deleted}`, { token: author })).status).toBe(200);
    expect(await refusal(deleted)).toMatch(/changed after the approve/);

    const flagged = await pending();
    await moderate([flagged], 'approve');
    await parley.request('POST', `/v1/comments/${flagged}/flag`, { body: { reason: 'spam' } });
    await moderate([flagged], 'dismiss_flags');
    await parley.request('POST', `/v1/comments/${flagged}/flag`, { token: author, body: {} });
    expect(await refusal(flagged)).toMatch(/changed after the dismiss_flags/);
  });

  it('refuses an action it cannot take back (a pin), and the shadow ban someone lifted since', async () => {
    const pinned = await pending();
    await moderate([pinned], 'approve');
    expect((await parley.request('POST', `/api/comments/${pinned}/pin`, { token: site.api_key })).status).toBe(200);
    expect(await refusal(pinned)).toMatch(/\(pin\) cannot be undone/);

    const hidden = await pending();
    await moderate([hidden], 'approve');
    await moderate([hidden], 'shadow_ban');
    const bans = await parley.request('GET', `/api/sites/${site.site_id}/bans`, { token: site.api_key });
    await parley.request('DELETE', `/api/sites/${site.site_id}/bans/${bans.body.bans[0].id}`, { token: site.api_key });
    await refusal(hidden);
  });
});
