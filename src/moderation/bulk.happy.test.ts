import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { startReceiver, subscribe, WEBHOOK_TEST_ENV, type Receiver } from '../../test/receiver.ts';
import { addStaff, signInStaff } from '../../test/staff.ts';

let parley: TestParley;
let receiver: Receiver;
let site: { account_id: string; site_id: string; api_key: string };
let author: string;

beforeAll(async () => {
  receiver = await startReceiver();
  parley = await startParley(WEBHOOK_TEST_ENV);
  site = await parley.newSite({ moderation: 'all' });
  author = await parley.signIn(site.api_key, site.site_id, { id: 'author', name: 'Author' });
  await subscribe(parley, site, receiver.url, ['moderation.action', 'comment.approved']);
});
afterAll(async () => {
  await parley.close();
  await receiver.close();
});

async function pending(count: number) {
  const thread = pageUrl();
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await parley.request('POST', '/v1/comments', { token: author, body: { site_id: site.site_id, thread_url: thread, content: `waiting ${i}` } });
    ids.push(response.body.id);
  }
  return ids;
}
const bulk = (body: unknown, token = site.api_key) => parley.request('POST', '/api/comments/moderate', { token, body });
const log = (query = '') => parley.request('GET', `/api/sites/${site.site_id}/moderation-log?${query}`, { token: site.api_key });

describe('bulk moderation', () => {
  it('approves several comments as the single endpoint does: per id, with a log entry and the events of each', async () => {
    const ids = await pending(3);
    const response = await bulk({ ids, action: 'approve', reason: 'fine' });
    expect(response.status).toBe(200);
    expect(response.body.results).toEqual(
      ids.map((id, i) => ({ id, ok: true, result: { id, action: 'approve', status: 'published', moderation_status: null, content: `waiting ${i}`, author_name: 'Author' } })),
    );
    const entries = (await log(`action=approve&limit=3`)).body.entries;
    expect(entries.map((entry: { comment: { id: string } }) => entry.comment.id).sort()).toEqual([...ids].sort());
    const events = (await receiver.waitFor(6)).filter((delivery) => ids.includes(delivery.body.data?.comment?.id));
    expect(events.map((event) => event.body.event).sort()).toEqual([...Array(3).fill('comment.approved'), ...Array(3).fill('moderation.action')]);
  });

  it('answers an action already in force with ok and writes nothing more, as the single endpoint does', async () => {
    const [id] = await pending(1);
    await bulk({ ids: [id], action: 'remove' });
    const before = (await log(`comment_id=${id}`)).body.entries.length;
    const again = await bulk({ ids: [id], action: 'remove' });
    expect(again.body.results[0]).toMatchObject({ id, ok: true, result: { status: 'removed' } });
    expect((await log(`comment_id=${id}`)).body.entries.length).toBe(before);
  });

  it('names the staff member who acted in the moderation log', async () => {
    const [id] = await pending(1);
    const staff = await addStaff(parley, site.account_id, 'moderator', { name: 'Mona Moderator' });
    const signedIn = await signInStaff(parley, staff.email);
    expect((await parley.request('POST', '/api/comments/moderate', { headers: signedIn.headers, body: { ids: [id], action: 'approve' } })).status).toBe(200);
    expect((await log(`comment_id=${id}`)).body.entries[0].moderator).toEqual({ id: staff.id, kind: 'staff', name: 'Mona Moderator' });
  });
});

describe('flags', () => {
  it('lists a comment\'s flags with their reasons, and dismissing them takes the comment out of "flagged"', async () => {
    const [id] = await pending(1);
    await bulk({ ids: [id], action: 'approve' });
    const reader = await parley.signIn(site.api_key, site.site_id, { id: 'reader', name: 'Reader' });
    await parley.request('POST', `/v1/comments/${id}/flag`, { token: reader, body: { reason: 'rude' } });
    await parley.request('POST', `/v1/comments/${id}/flag`, { body: { reason: 'spam?' } });
    const flags = await parley.request('GET', `/api/comments/${id}/flags`, { token: site.api_key });
    expect(flags.status).toBe(200);
    expect(flags.body).toEqual({
      comment_id: id,
      flag_count: 2,
      flags: [
        { flagger: { id: null, kind: 'guest', name: null }, reason: 'spam?', created_at: expect.any(String), dismissed_at: null },
        { flagger: { id: expect.stringMatching(/^usr_/), kind: 'user', name: 'Reader' }, reason: 'rude', created_at: expect.any(String), dismissed_at: null },
      ],
    });
    const flagged = () => parley.request('GET', `/api/comments?site_id=${site.site_id}&status=flagged`, { token: site.api_key });
    expect((await flagged()).body.comments.map((c: { id: string }) => c.id)).toContain(id);

    const dismissed = await bulk({ ids: [id], action: 'dismiss_flags', reason: 'harmless' });
    expect(dismissed.body.results[0]).toMatchObject({ ok: true, result: { id, action: 'dismiss_flags', status: 'published' } });
    expect((await flagged()).body.comments.map((c: { id: string }) => c.id)).not.toContain(id);
    const after = await parley.request('GET', `/api/comments/${id}/flags`, { token: site.api_key });
    expect(after.body.flag_count).toBe(0);
    expect(after.body.flags.every((flag: { dismissed_at: string | null }) => flag.dismissed_at !== null)).toBe(true);
    expect((await log('action=dismiss_flags')).body.entries[0]).toMatchObject({ action: 'dismiss_flags', reason: 'harmless', comment: { id } });
    // A reader who flagged before does not count again; a new one does.
    await parley.request('POST', `/v1/comments/${id}/flag`, { token: reader, body: {} });
    const other = await parley.signIn(site.api_key, site.site_id, { id: 'other', name: 'Other' });
    await parley.request('POST', `/v1/comments/${id}/flag`, { token: other, body: {} });
    expect((await parley.request('GET', `/api/comments/${id}/flags`, { token: site.api_key })).body.flag_count).toBe(1);
  });
});

describe('the moderation log', () => {
  it('says who did what to which comment, when and why, newest first, filtered by person and action, a page at a time', async () => {
    const moderatorKey = (await parley.request('POST', '/api/keys', { token: site.api_key, body: { role: 'moderator', name: 'Mod bot' } })).body;
    const [a, b, c] = await pending(3);
    await parley.request('PATCH', `/v1/comments/${a}/moderate`, { token: moderatorKey.api_key, body: { action: 'approve', reason: 'ok' } });
    await parley.request('PATCH', `/v1/comments/${b}/moderate`, { token: moderatorKey.api_key, body: { action: 'spam' } });
    await parley.request('PATCH', `/v1/comments/${c}/moderate`, { token: site.api_key, body: { action: 'remove', reason: 'rude' } });

    const byBot = await log(`moderator=${moderatorKey.id}`);
    expect(byBot.body.entries).toEqual([
      {
        id: expect.stringMatching(/^mod_/),
        site_id: site.site_id,
        action: 'spam',
        reason: null,
        created_at: expect.any(String),
        moderator: { id: moderatorKey.id, kind: 'key', name: 'Mod bot' },
        comment: { id: b, author_name: 'Author', excerpt: 'waiting 1', thread_url: expect.any(String) },
      },
      expect.objectContaining({ action: 'approve', reason: 'ok', comment: expect.objectContaining({ id: a }) }),
    ]);
    expect((await log('action=remove&limit=1')).body.entries[0]).toMatchObject({ action: 'remove', reason: 'rude', comment: { id: c } });
    const first = await log('limit=2');
    const next = await log(`limit=2&cursor=${first.body.next_cursor}`);
    const firstIds = first.body.entries.map((entry: { id: string }) => entry.id);
    expect(next.body.entries.map((entry: { id: string }) => entry.id).some((id: string) => firstIds.includes(id))).toBe(false);
  });
});
