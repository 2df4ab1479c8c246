import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { startReceiver, subscribe, WEBHOOK_TEST_ENV, type Receiver } from '../../test/receiver.ts';

let parley: TestParley;
let receiver: Receiver;
let site: { account_id: string; site_id: string; api_key: string };
let reader: string;
let readerId: string;

beforeAll(async () => {
  receiver = await startReceiver();
  parley = await startParley(WEBHOOK_TEST_ENV);
  site = await parley.newSite();
  const session = (await parley.request('POST', '/v1/sessions', { token: site.api_key, body: { site_id: site.site_id, user: { id: 'reader', name: 'Rita' } } })).body;
  reader = session.token;
  readerId = session.user.id;
  await subscribe(parley, site, receiver.url, ['moderation.action', 'comment.approved']);
});
afterAll(async () => {
  await parley.close();
  await receiver.close();
});

const post = async (content = 'my comment', thread = pageUrl()) =>
  (await parley.request('POST', '/v1/comments', { token: reader, body: { site_id: site.site_id, thread_url: thread, content } })).body.id as string;
const moderate = (id: string, action: string, reason?: string) => parley.request('PATCH', `/v1/comments/${id}/moderate`, { token: site.api_key, body: { action, reason } });
const contest = (id: string, message = 'It was on topic: I was answering the question above.') => parley.request('POST', `/v1/comments/${id}/contest`, { token: reader, body: { message } });
const resolve = (id: string, outcome: string, note?: string) => parley.request('POST', `/api/contests/${id}/resolve`, { token: site.api_key, body: { outcome, note } });
const contests = (query = '') => parley.request('GET', `/api/contests?site_id=${site.site_id}${query}`, { token: site.api_key });
const decisionJobs = (commentId: string) =>
  parley.app.db.kysely.selectFrom('notification_jobs').select(['kind', 'site_id', 'data', 'state']).where('comment_id', '=', commentId).where('kind', '=', 'decision').execute();

describe('contesting a decision', () => {
  it('a reader contests the removal of their comment; the moderators see it with the decision and its reason', async () => {
    const thread = pageUrl();
    const id = await post('Here is what I think', thread);
    await moderate(id, 'remove', 'Off topic');
    const response = await contest(id);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ id: expect.stringMatching(/^dcn_/), comment_id: id, state: 'open', created_at: expect.any(String) });

    const listed = await contests();
    expect(listed.status).toBe(200);
    const item = listed.body.contests.find((c: { id: string }) => c.id === response.body.id);
    expect(item).toMatchObject({
      site_id: site.site_id,
      state: 'open',
      message: 'It was on topic: I was answering the question above.',
      comment: { id, thread_url: thread, author_name: 'Rita', author_id: readerId, content: 'Here is what I think', status: 'removed' },
      decision: { action: 'removed', reason: 'Off topic', moderator: { kind: 'key', name: expect.any(String) }, decided_at: expect.any(String) },
      outcome: null,
      note: null,
      resolved_by: null,
      resolved_at: null,
    });
  });

  it('reinstating approves the comment through moderation: public again, logged with the note, webhooks sent, the reader told "approved"', async () => {
    const thread = pageUrl();
    const id = await post('Reinstate me', thread);
    await moderate(id, 'spam');
    const contested = (await contest(id)).body;
    const response = await resolve(contested.id, 'reversed', 'Sorry, the filter was wrong');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: contested.id, state: 'resolved', outcome: 'reversed', note: 'Sorry, the filter was wrong', resolved_by: { kind: 'key' }, comment: { status: 'published' } });

    const publicList = await parley.request('GET', `/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent(thread)}`);
    expect(publicList.body.comments.map((c: { id: string }) => c.id)).toEqual([id]);
    const log = await parley.request('GET', `/api/sites/${site.site_id}/moderation-log?comment_id=${id}`, { token: site.api_key });
    expect(log.body.entries.map((e: { action: string; reason: string | null }) => [e.action, e.reason])).toEqual([['approve', 'Sorry, the filter was wrong'], ['spam', null]]);
    const sent = () => receiver.received.filter((delivery) => delivery.body.data?.comment?.id === id).map((delivery) => delivery.body.event).sort();
    await expect.poll(sent, { timeout: 10_000 }).toEqual(['comment.approved', 'moderation.action', 'moderation.action']);

    const jobs = await decisionJobs(id);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ site_id: site.site_id, state: 'pending' });
    const logId = log.body.entries[0].id;
    expect(JSON.parse(jobs[0].data)).toEqual({ action: 'approved', reason: 'Sorry, the filter was wrong', log_id: logId });
  });

  it('upholding leaves the comment as it was and tells the reader "contest_upheld" with the note as the reason', async () => {
    const id = await post('Keep me out');
    await moderate(id, 'remove', 'Personal attack');
    const contested = (await contest(id)).body;
    const response = await resolve(contested.id, 'upheld', 'Calling someone names is an attack.');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ state: 'resolved', outcome: 'upheld', note: 'Calling someone names is an attack.', comment: { status: 'removed' } });
    const jobs = await decisionJobs(id);
    expect(jobs.map((job) => JSON.parse(job.data))).toEqual([{ action: 'contest_upheld', reason: 'Calling someone names is an attack.', log_id: contested.id }]);
    const log = await parley.request('GET', `/api/sites/${site.site_id}/moderation-log?comment_id=${id}`, { token: site.api_key });
    expect(log.body.entries.map((e: { action: string }) => e.action)).toEqual(['remove']);
  });

  it('a held comment may be contested too, and reinstating it publishes it', async () => {
    const held = await parley.newSite({ moderation: 'all' });
    const token = await parley.signIn(held.api_key, held.site_id, { id: 'waiting', name: 'Wanda' });
    const thread = pageUrl();
    const id = (await parley.request('POST', '/v1/comments', { token, body: { site_id: held.site_id, thread_url: thread, content: 'waiting for review' } })).body.id;
    const contested = await parley.request('POST', `/v1/comments/${id}/contest`, { token, body: { message: 'Please have a look' } });
    expect(contested.status).toBe(201);
    const listed = await parley.request('GET', `/api/contests?site_id=${held.site_id}`, { token: held.api_key });
    expect(listed.body.contests[0].decision).toEqual({ action: 'held', reason: null, moderator: null, decided_at: null });
    const resolved = await parley.request('POST', `/api/contests/${contested.body.id}/resolve`, { token: held.api_key, body: { outcome: 'reversed' } });
    expect(resolved.body.comment.status).toBe('published');
    expect(JSON.parse((await decisionJobs(id))[0].data)).toMatchObject({ action: 'approved', reason: null });
  });

  it('lists open contests oldest first and resolved ones latest resolved first, a cursor page at a time', async () => {
    const own = await parley.newSite();
    const token = await parley.signIn(own.api_key, own.site_id, { id: 'many', name: 'Many' });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const comment = (await parley.request('POST', '/v1/comments', { token, body: { site_id: own.site_id, thread_url: pageUrl(), content: `c${i}` } })).body.id;
      await parley.request('PATCH', `/v1/comments/${comment}/moderate`, { token: own.api_key, body: { action: 'remove' } });
      ids.push((await parley.request('POST', `/v1/comments/${comment}/contest`, { token, body: { message: `m${i}` } })).body.id);
    }
    const list = (query: string) => parley.request('GET', `/api/contests?site_id=${own.site_id}${query}`, { token: own.api_key });
    const first = await list('&limit=2');
    expect(first.body.contests.map((c: { id: string }) => c.id)).toEqual(ids.slice(0, 2));
    const second = await list(`&limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ contests: [{ id: ids[2] }], next_cursor: null });

    await parley.request('POST', `/api/contests/${ids[0]}/resolve`, { token: own.api_key, body: { outcome: 'upheld' } });
    await parley.request('POST', `/api/contests/${ids[2]}/resolve`, { token: own.api_key, body: { outcome: 'upheld' } });
    expect((await list('')).body.contests.map((c: { id: string }) => c.id)).toEqual([ids[1]]);
    const resolved = await list('&state=resolved&limit=1');
    expect(resolved.body.contests.map((c: { id: string }) => c.id)).toEqual([ids[2]]);
    expect((await list(`&state=resolved&limit=1&cursor=${resolved.body.next_cursor}`)).body.contests.map((c: { id: string }) => c.id)).toEqual([ids[0]]);
    // Every site the caller moderates, when no site is named.
    const everywhere = await parley.request('GET', '/api/contests', { token: own.api_key });
    expect(everywhere.body.contests.map((c: { id: string }) => c.id)).toEqual([ids[1]]);
  });

  it('a later decision may be contested again after an uphold', async () => {
    const id = await post('Second chance');
    await moderate(id, 'remove');
    await resolve((await contest(id)).body.id, 'upheld');
    await moderate(id, 'spam');
    expect((await contest(id)).status).toBe(201);
  });
});

describe('the site contact', () => {
  it('is set in the site settings, shown to readers in GET /v1/widget, and cleared with null', async () => {
    const own = await parley.newSite();
    const set = (contact: string | null) => parley.request('PATCH', `/api/sites/${own.site_id}`, { token: own.api_key, body: { contact } });
    const widget = async () => (await parley.request('GET', `/v1/widget?site_id=${own.site_id}`)).body.site.contact;
    expect(await widget()).toBeNull();
    expect((await set('https://example.com/moderation-appeals')).body.contact).toBe('https://example.com/moderation-appeals');
    expect(await widget()).toBe('https://example.com/moderation-appeals');
    // A bare address is kept as the mailto: link the widget offers.
    expect((await set('appeals@example.com')).body.contact).toBe('mailto:appeals@example.com');
    expect((await set('mailto:team@example.org')).body.contact).toBe('mailto:team@example.org');
    expect((await parley.request('GET', `/api/sites/${own.site_id}`, { token: own.api_key })).body.contact).toBe('mailto:team@example.org');
    expect(await widget()).toBe('mailto:team@example.org');
    expect((await set(null)).body.contact).toBeNull();
    expect(await widget()).toBeNull();
  });
});
