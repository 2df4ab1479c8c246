import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, threadWithUsers, type TestParley } from '../../test/helper.ts';
import { addStaff, signInStaff } from '../../test/staff.ts';

let parley: TestParley;

beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

describe('staff writing from the dashboard', () => {
  it('publishes a moderator’s reply under their own name with the staff badge, seen by the public in the thread', async () => {
    const { site, alice, path, post } = await threadWithUsers(parley);
    const question = await post(alice, 'Does this work offline?');
    const moderator = await signInStaff(parley, (await addStaff(parley, site.account_id, 'moderator', { name: 'Sam from Support' })).email);
    const thread = new URL(path, parley.url).searchParams.get('thread_url')!;
    const written = await parley.request('POST', '/api/comments', {
      headers: moderator.headers,
      body: { site_id: site.site_id, thread_url: thread, parent_id: question, content: 'Yes: it keeps a copy on the device.' },
    });
    expect(written.status).toBe(201);
    expect(written.body).toMatchObject({ parent_id: question, author_name: 'Sam from Support', author_badges: ['staff'], status: 'published', content: 'Yes: it keeps a copy on the device.' });

    const listed = await parley.request('GET', path);
    const reply = listed.body.comments[0].replies[0];
    expect(reply).toMatchObject({ id: written.body.id, author_name: 'Sam from Support', author_badges: ['staff'], author_is_guest: false });

    // The queue names the author as staff, whom no ban reaches.
    const queued = await parley.request('GET', `/api/comments?site_id=${site.site_id}&status=all&thread_url=${encodeURIComponent(thread)}`, { headers: moderator.headers });
    expect(queued.body.comments.find((item: { id: string }) => item.id === written.body.id).author).toMatchObject({ kind: 'staff' });
  });

  it('publishes at once on a site that holds every comment, and a top-level comment too', async () => {
    const { site, path } = await threadWithUsers(parley);
    await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { moderation_mode: 'all' } });
    const owner = await signInStaff(parley, (await addStaff(parley, site.account_id, 'owner', { name: 'Olga Owner' })).email);
    const thread = new URL(path, parley.url).searchParams.get('thread_url')!;
    const written = await parley.request('POST', '/api/comments', { headers: owner.headers, body: { site_id: site.site_id, thread_url: thread, content: 'Welcome, everyone.' } });
    expect(written.body).toMatchObject({ status: 'published', parent_id: null, author_name: 'Olga Owner', author_badges: ['staff'] });
    expect((await parley.request('GET', path)).body.comments.map((c: { content: string }) => c.content)).toEqual(['Welcome, everyone.']);
  });

  it('lets a moderator key reply as the key does under /v1, without a badge', async () => {
    const { site, alice, path, post } = await threadWithUsers(parley);
    const question = await post(alice, 'Any news?');
    const thread = new URL(path, parley.url).searchParams.get('thread_url')!;
    const key = await parley.request('POST', '/api/keys', { token: site.api_key, body: { name: 'Helpdesk', role: 'moderator' } });
    const written = await parley.request('POST', '/api/comments', { token: key.body.api_key, body: { site_id: site.site_id, thread_url: thread, parent_id: question, content: 'Soon.' } });
    expect(written.body).toMatchObject({ author_name: 'Helpdesk', author_badges: [], status: 'published' });
  });
});

describe("moderators' notes on a commenter", () => {
  it('lets a moderator delete their own note, and an admin anyone’s', async () => {
    const { site, alice } = await threadWithUsers(parley);
    const userId = (await parley.request('GET', '/v1/me', { token: alice })).body.user.id as string;
    const notes = `/api/sites/${site.site_id}/users/${userId}/notes`;
    const moderator = await signInStaff(parley, (await addStaff(parley, site.account_id, 'moderator', { name: 'Mo' })).email);
    const admin = await signInStaff(parley, (await addStaff(parley, site.account_id, 'admin', { name: 'Ada' })).email);
    const own = await parley.request('POST', notes, { headers: moderator.headers, body: { body: 'Warned twice about links' } });
    const others = await parley.request('POST', notes, { headers: admin.headers, body: { body: 'Asked for a name change' } });
    const profile = await parley.request('GET', `/api/sites/${site.site_id}/users/${userId}`, { headers: moderator.headers });
    expect(profile.body.notes.map((note: { body: string; created_by: { name: string } }) => [note.body, note.created_by.name])).toEqual([
      ['Asked for a name change', 'Ada'],
      ['Warned twice about links', 'Mo'],
    ]);
    expect((await parley.request('DELETE', `${notes}/${own.body.id}`, { headers: moderator.headers })).status).toBe(200);
    const second = await parley.request('POST', notes, { headers: moderator.headers, body: { body: 'Calmer since' } });
    expect((await parley.request('DELETE', `${notes}/${second.body.id}`, { headers: admin.headers })).status).toBe(200);
    expect((await parley.request('DELETE', `${notes}/${others.body.id}`, { headers: admin.headers })).status).toBe(200);
    expect((await parley.request('GET', `/api/sites/${site.site_id}/users/${userId}`, { headers: admin.headers })).body.notes).toEqual([]);
  });
});
