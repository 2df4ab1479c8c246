import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../../test/helper.ts';
import { identityProvider, signedInReader } from './readers.fixture.ts';

let parley: TestParley;
let site: { account_id: string; site_id: string; api_key: string };
beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite({ siteName: 'Tea Blog' });
});
afterAll(() => parley.close());

async function post(token: string, thread: string, content: string) {
  const response = await parley.request('POST', '/v1/comments', { token, body: { site_id: site.site_id, thread_url: thread, content } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.id as string;
}

describe("a reader's own page", () => {
  it('shows their name, ways of signing in, mail settings and no pending deletion', async () => {
    const github = await identityProvider(parley, site.site_id, 'github', 'GitHub');
    const first = await signedInReader(parley, site.site_id, { email: 'ann@example.com', name: 'Ann' });
    await signedInReader(parley, site.site_id, { provider: github, subject: '4242', email: 'ann@example.com', name: 'Ann on GitHub' });
    const me = await parley.request('GET', '/v1/me', { token: first.token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      user: { id: first.user.id, name: 'Ann', avatar_url: null, own_account: true },
      email: 'ann@example.com',
      sign_in_methods: [
        { id: expect.stringMatching(/^rid_/), type: 'email', provider_id: null, provider_name: null, email: 'ann@example.com', created_at: expect.any(String), last_used_at: expect.any(String) },
        { id: expect.stringMatching(/^rid_/), type: 'github', provider_id: github, provider_name: 'GitHub', email: 'ann@example.com', created_at: expect.any(String), last_used_at: expect.any(String) },
      ],
      mail: { notify_replies: false, mention_mail: true },
      claimable_guest_comments: 0,
      erase_after: null,
    });

    // Moderators see how the reader signs in, not their addresses.
    const profile = await parley.request('GET', `/api/sites/${site.site_id}/users/${first.user.id}`, { token: site.api_key });
    expect(profile.body.own_account).toBe(true);
    expect(profile.body.sign_in_methods).toEqual([
      { type: 'email', provider_name: null, created_at: expect.any(String), last_used_at: expect.any(String) },
      { type: 'github', provider_name: 'GitHub', created_at: expect.any(String), last_used_at: expect.any(String) },
    ]);
    expect(JSON.stringify(profile.body)).not.toContain('ann@example.com');
  });

  it("shows a site's SSO user as the site's, with no ways of signing in of their own", async () => {
    const token = await parley.signIn(site.api_key, site.site_id, { id: 'sso-7', name: 'Sam' });
    const me = await parley.request('GET', '/v1/me', { token });
    expect(me.body).toMatchObject({ user: { name: 'Sam', own_account: false }, sign_in_methods: [], claimable_guest_comments: 0 });
    const profile = await parley.request('GET', `/api/sites/${site.site_id}/users/${me.body.user.id}`, { token: site.api_key });
    expect(profile.body).toMatchObject({ own_account: false, sign_in_methods: [] });
  });

  it('renames the reader and their earlier comments, in lists already read', async () => {
    const reader = await signedInReader(parley, site.site_id, { email: 'bea@example.com', name: 'Bea' });
    const thread = pageUrl();
    await post(reader.token, thread, 'First!');
    const single = await post(reader.token, thread, 'Second');
    const list = `/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent(thread)}`;
    expect((await parley.request('GET', list)).body.comments.map((c: { author_name: string }) => c.author_name)).toEqual(['Bea', 'Bea']);
    expect((await parley.request('GET', `/v1/comments/${single}`)).body.author_name).toBe('Bea');

    const renamed = await parley.request('PATCH', '/v1/me', { token: reader.token, body: { name: '  Beatrice  ' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.user.name).toBe('Beatrice');
    expect((await parley.request('GET', '/v1/me', { token: reader.token })).body.user.name).toBe('Beatrice');
    expect((await parley.request('GET', list)).body.comments.map((c: { author_name: string }) => c.author_name)).toEqual(['Beatrice', 'Beatrice']);
    expect((await parley.request('GET', `/v1/comments/${single}`)).body.author_name).toBe('Beatrice');
    // New comments carry it too.
    const third = await post(reader.token, thread, 'Third');
    expect((await parley.request('GET', `/v1/comments/${third}`)).body.author_name).toBe('Beatrice');
  });

  it('pages through their comments newest first: pending ones included, deleted ones and other readers\' left out', async () => {
    const reader = await signedInReader(parley, site.site_id, { email: 'cy@example.com', name: 'Cy' });
    const other = await signedInReader(parley, site.site_id, { email: 'dee@example.com', name: 'Dee' });
    const thread = pageUrl();
    const ids = [];
    for (const content of ['one', 'two', 'three', 'gone']) ids.push(await post(reader.token, thread, content));
    await post(other.token, thread, 'not theirs');
    expect((await parley.request('DELETE', `/v1/comments/${ids[3]}`, { token: reader.token })).status).toBeLessThan(300);
    expect((await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { moderation_mode: 'all' } })).status).toBe(200);
    const held = await post(reader.token, thread, 'held for a moderator');
    await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { moderation_mode: 'none' } });
    await parley.request('POST', `/v1/comments/${ids[0]}/vote`, { token: reader.token, body: { vote_type: 'up' } });

    const first = await parley.request('GET', '/v1/me/comments?limit=2', { token: reader.token });
    expect(first.status).toBe(200);
    expect(first.body.comments.map((c: { id: string }) => c.id)).toEqual([held, ids[2]]);
    expect(first.body.comments[0]).toMatchObject({ status: 'pending', thread_url: thread, thread_title: null, user_is_author: true, author_name: 'Cy', replies: [] });
    const second = await parley.request('GET', `/v1/me/comments?limit=2&cursor=${first.body.next_cursor}`, { token: reader.token });
    expect(second.body.comments.map((c: { id: string; content: string }) => c.content)).toEqual(['two', 'one']);
    expect(second.body.comments[1].user_vote).toBe('up');
    expect(second.body.next_cursor).toBeNull();
  });

  it('removes a way of signing in, but never the last one', async () => {
    const google = await identityProvider(parley, site.site_id, 'google', 'Google');
    const reader = await signedInReader(parley, site.site_id, { email: 'eve@example.com', name: 'Eve' });
    await signedInReader(parley, site.site_id, { provider: google, subject: 'g-1', email: 'eve@example.com' });
    const [byEmail, byGoogle] = (await parley.request('GET', '/v1/me', { token: reader.token })).body.sign_in_methods;
    const removed = await parley.request('DELETE', `/v1/me/sign-in-methods/${byEmail.id}`, { token: reader.token });
    expect(removed.status).toBe(200);
    expect(removed.body.sign_in_methods).toEqual([byGoogle]);
    const last = await parley.request('DELETE', `/v1/me/sign-in-methods/${byGoogle.id}`, { token: reader.token });
    expect(last.status).toBe(409);
    expect(last.body.detail).toBe('This is your only way to sign in: add another one before removing it');
    // Google still signs Eve in as herself.
    const again = await signedInReader(parley, site.site_id, { provider: google, subject: 'g-1', email: 'eve@example.com' });
    expect(again.user.id).toBe(reader.user.id);
  });
});
