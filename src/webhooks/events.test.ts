import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EVENT_TYPES } from '../events/record.ts';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { finishedImport, uploadImport } from '../../test/imports.ts';
import { sleep, startReceiver, subscribe, WEBHOOK_TEST_ENV, type Receiver } from '../../test/receiver.ts';

const run = promisify(execFile);

let parley: TestParley;
let receiver: Receiver;

beforeAll(async () => {
  parley = await startParley(WEBHOOK_TEST_ENV);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await parley.close();
});

const comment = {
  id: expect.stringMatching(/^cmt_/),
  thread_url: expect.any(String),
  author_name: expect.any(String),
  content: expect.any(String),
  content_html: expect.stringMatching(/^<p>/),
  mentions: [],
  status: 'published',
  parent_id: null,
  created_at: expect.any(String),
};

it('delivers each of the eleven events from its real trigger, with the documented data', async () => {
  const site = await parley.newSite({ moderation: 'guests' });
  await subscribe(parley, site, receiver.url, [...EVENT_TYPES]);
  const thread = pageUrl();
  const call = (method: string, path: string, token?: string, body?: unknown) => parley.request(method, path, { token, body });
  const session = async (id: string, name: string) =>
    (await call('POST', '/v1/sessions', site.api_key, { site_id: site.site_id, user: { id, name } })).body;
  const post = async (token: string | undefined, content: string, extra = {}) =>
    (await call('POST', '/v1/comments', token, { thread_url: thread, site_id: site.site_id, content, ...extra })).body;

  const ada = await session('ada-1', 'Ada');
  const bob = await session('bob-2', 'Bob');
  const adaComment = await post(ada.token, 'First!'); // comment.created + user.created
  const guestComment = await post(undefined, 'A guest speaks', { author_name: 'Guest', ...(await parley.guestForm(site.site_id)) }); // comment.created, pending
  expect(guestComment.status).toBe('pending');
  await post(bob.token, 'Bob was here'); // comment.created + user.created
  await call('PATCH', `/v1/comments/${adaComment.id}`, ada.token, { content: 'First! (edited)' }); // comment.updated
  await call('POST', `/v1/comments/${adaComment.id}/flag`, undefined, { reason: 'rude' }); // comment.flagged
  await call('PATCH', `/v1/comments/${guestComment.id}/moderate`, site.api_key, { action: 'approve', reason: 'fine' }); // + moderation.action
  const bobSecond = await post(bob.token, 'Spam spam spam'); // comment.created
  await call('PATCH', `/v1/comments/${bobSecond.id}/moderate`, site.api_key, { action: 'remove' }); // comment.rejected + moderation.action
  await call('PATCH', `/v1/comments/${adaComment.id}/moderate`, site.api_key, { action: 'shadow_ban', reason: 'troll' }); // user.banned + moderation.action
  const ban = await call('POST', `/api/sites/${site.site_id}/bans`, site.api_key, { user_id: bob.user.id, ban_type: 'ban', reason: 'spam' }); // user.banned
  expect(ban.status).toBe(201);
  await call('DELETE', `/v1/comments/${adaComment.id}`, ada.token); // comment.deleted
  const file = `<disqus xmlns="http://disqus.com" xmlns:dsq="http://disqus.com/disqus-internals"><thread dsq:id="t"><link>${thread}</link></thread>` +
    '<post dsq:id="p"><message>From the old system</message><createdAt>2020-01-01T00:00:00Z</createdAt><author><name>Old</name></author><thread dsq:id="t"/></post></disqus>';
  const imported = await uploadImport(parley, site.site_id, site.api_key, file);
  await finishedImport(parley, site.site_id, site.api_key, imported.body.id); // import.completed, and no comment.created for what it imported
  const cli = (plan: string) =>
    run(process.execPath, ['bin/parley.js', 'plan', 'set', '--account', site.account_id, '--plan', plan], {
      env: { ...process.env, DATABASE_URL: parley.config.databaseUrl },
    });
  await cli('business'); // subscription.changed
  const beforeDowngrade = await receiver.waitFor(18, 15_000);
  await cli('free'); // subscription.changed: the downgrade itself is still delivered...
  await receiver.waitFor(19, 15_000);
  await post(site.api_key, 'After the downgrade'); // ...and nothing after it
  await sleep(700);
  expect(receiver.received).toHaveLength(19);
  expect(beforeDowngrade).toHaveLength(18);

  const of = (event: string) => receiver.received.filter((r) => r.body.event === event).map((r) => r.body);
  for (const body of receiver.received.map((r) => r.body)) {
    expect(body).toEqual({ event: expect.any(String), site_id: site.site_id, timestamp: expect.any(String), data: expect.any(Object) });
  }
  for (const received of receiver.received) expect(received.headers['x-service-event']).toBe(received.body.event);
  expect(new Set(receiver.received.map((r) => r.body.event))).toEqual(new Set(EVENT_TYPES));

  const created = of('comment.created').map((b) => b.data.comment);
  expect(created).toHaveLength(4);
  expect(created[0]).toEqual({ ...comment, id: adaComment.id, author_name: 'Ada', content: 'First!', thread_url: thread });
  expect(created.find((c) => c.id === guestComment.id)).toEqual({ ...comment, id: guestComment.id, author_name: 'Guest', content: 'A guest speaks', status: 'pending' });

  const users = of('user.created').map((b) => b.data.user);
  expect(users).toEqual([
    { id: ada.user.id, external_id: 'ada-1', name: 'Ada', avatar_url: null, created_at: expect.any(String) },
    { id: bob.user.id, external_id: 'bob-2', name: 'Bob', avatar_url: null, created_at: expect.any(String) },
  ]);

  expect(of('comment.updated')).toEqual([expect.objectContaining({ data: { comment: { ...comment, id: adaComment.id, content: 'First! (edited)' } } })]);
  expect(of('comment.flagged')[0].data).toEqual({ comment: { ...comment, id: adaComment.id }, reason: 'rude' });
  expect(of('comment.approved')[0].data).toEqual({ comment: { ...comment, id: guestComment.id, status: 'published' } });
  expect(of('comment.rejected')[0].data).toEqual({ comment: { ...comment, id: bobSecond.id, status: 'removed' } });
  expect(of('comment.deleted')[0].data).toEqual({ comment: { ...comment, id: adaComment.id, content: null, content_html: null } });

  const actions = of('moderation.action').map((b) => b.data);
  expect(actions.map((a) => [a.action, a.reason, a.comment.id])).toEqual([
    ['approve', 'fine', guestComment.id],
    ['remove', null, bobSecond.id],
    ['shadow_ban', 'troll', adaComment.id],
  ]);
  for (const action of actions) expect(action.moderator).toEqual({ id: expect.stringMatching(/^key_/), name: 'bootstrap admin key' });

  const bans = of('user.banned').map((b) => b.data);
  expect(bans).toEqual([
    { user: { id: ada.user.id, external_id: 'ada-1', name: 'Ada', avatar_url: null }, ban_type: 'shadow_ban', reason: 'troll' },
    { user: { id: bob.user.id, external_id: 'bob-2', name: 'Bob', avatar_url: null }, ban_type: 'ban', reason: 'spam' },
  ]);

  expect(of('import.completed').map((b) => b.data.import)).toEqual([
    expect.objectContaining({ id: imported.body.id, format: 'disqus', threads: { created: 0, existing: 1 }, comments: { imported: 1, by_status: { published: 1 }, already_present: 0 } }),
  ]);

  expect(of('subscription.changed').map((b) => b.data)).toEqual([
    { plan: 'business', previous_plan: 'publisher' },
    { plan: 'free', previous_plan: 'business' },
  ]);
});
