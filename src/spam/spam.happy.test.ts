import { solveChallenge } from 'altcha-lib/v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { startReceiver, subscribe, waitForLog, WEBHOOK_TEST_ENV, type Receiver } from '../../test/receiver.ts';
import { DEFAULT_SPAM_SETTINGS } from './settings.ts';

let parley: TestParley;
let receiver: Receiver;
beforeAll(async () => {
  parley = await startParley({ ...WEBHOOK_TEST_ENV, TRUST_PROXY: '127.0.0.1' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await parley.close();
  await receiver.close();
});

type Site = { site_id: string; api_key: string; account_id: string };

async function siteWith(spam: object = {}): Promise<Site> {
  const site = await parley.newSite();
  if (Object.keys(spam).length > 0) expect((await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { spam } })).status).toBe(200);
  return site;
}

/** A guest's comment as the widget sends it (form token issued a minute ago), from `ip`. */
async function asGuest(site: Site, ip: string, content: string, extra: object = {}, thread = pageUrl()) {
  const body = { site_id: site.site_id, thread_url: thread, content, ...(await parley.guestForm(site.site_id)), ...extra };
  return parley.request('POST', '/v1/comments', { headers: { 'x-forwarded-for': ip }, body });
}

const queueItem = async (site: Site, id: string) =>
  (await parley.request('GET', `/api/comments?site_id=${site.site_id}&status=all&limit=100`, { token: site.api_key })).body.comments.find((c: { id: string }) => c.id === id);

describe('spam settings', () => {
  it('show every default, change only what a PATCH gives, and land in the audit log by name', async () => {
    const site = await siteWith();
    expect((await parley.request('GET', `/api/sites/${site.site_id}`, { token: site.api_key })).body.spam).toEqual(DEFAULT_SPAM_SETTINGS);
    const changed = await parley.request('PATCH', `/api/sites/${site.site_id}`, {
      token: site.api_key,
      body: { spam: { max_links: 1, banned_words: ['  Casino ', 'casino', 'ＶＩＡＧＲＡ'], proof_of_work: 'velocity' } },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.spam).toEqual({ ...DEFAULT_SPAM_SETTINGS, max_links: 1, banned_words: ['casino', 'viagra'], proof_of_work: 'velocity' });
    const again = await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { spam: { thread_per_minute: 0 } } });
    expect(again.body.spam).toMatchObject({ max_links: 1, thread_per_minute: 0, proof_of_work: 'velocity' });
    const log = await parley.request('GET', `/api/accounts/${site.account_id}/audit-log?limit=10`, { token: site.api_key });
    const updates = log.body.entries.filter((entry: { action: string }) => entry.action === 'site.updated').map((entry: { data: object }) => entry.data);
    expect(updates).toEqual([
      { settings: ['spam'], spam: ['thread_per_minute'] },
      { settings: ['spam'], spam: ['max_links', 'banned_words', 'proof_of_work'] },
    ]);
  });
});

describe('a held comment', () => {
  it('is pending with its reasons in the queue and the comment.created webhook; "not spam" approves it, logged', async () => {
    const site = await siteWith();
    await subscribe(parley, site, receiver.url, ['comment.created', 'comment.approved']);
    const held = await asGuest(site, '203.0.113.5', 'Look at https://shop.example/deal please');
    expect(held.status).toBe(201);
    expect(held.body).toMatchObject({ status: 'pending', moderation_status: 'pending' });
    const reasons = [{ check: 'links', code: 'link_new_author', values: { minimum: 1 }, detail: 'a link from an author with fewer than 1 approved comments' }];
    expect((await queueItem(site, held.body.id)).spam_reasons).toEqual(reasons);
    const [delivery] = await waitForLog(parley, site, (deliveries) => deliveries.some((d) => d.event === 'comment.created' && d.state === 'succeeded'));
    const sent = receiver.received.map((r) => r.body).find((body) => body.data.comment.id === held.body.id);
    expect(sent.data.comment).toMatchObject({ status: 'pending', spam_reasons: reasons });
    expect(delivery.event).toBe('comment.created');

    const approved = await parley.request('PATCH', `/v1/comments/${held.body.id}/moderate`, { token: site.api_key, body: { action: 'approve', reason: 'not spam' } });
    expect(approved.body).toMatchObject({ status: 'published', moderation_status: null });
    const log = await parley.request('GET', `/api/sites/${site.site_id}/moderation-log`, { token: site.api_key });
    expect(log.body.entries[0]).toMatchObject({ action: 'approve', reason: 'not spam', comment: { id: held.body.id } });
    // The reasons stay for the record.
    expect((await queueItem(site, held.body.id)).spam_reasons).toEqual(reasons);
  });
});

describe("a reason's code and values", () => {
  const codes = async (site: Site, response: { body: { id: string } }) =>
    (await queueItem(site, response.body.id)).spam_reasons.map((reason: { code: string; values: object }) => [reason.code, reason.values]);

  it('name every check the way the dashboard words it, in any language', async () => {
    const site = await siteWith({ suspect_words: ['bargain'], max_links: 1, site_per_minute: 0, thread_per_minute: 0, ip_range_per_10_minutes: 0, links_min_approved: 0 });
    expect(await codes(site, await asGuest(site, '192.0.2.10', 'A plain comment', { website: 'https://spam.example' }))).toEqual([['form_hidden_field', {}]]);
    expect(await codes(site, await asGuest(site, '192.0.2.11', 'A plain comment', { form_token: '' }))).toEqual([['form_token', { problem: 'missing' }]]);
    const fresh = (await parley.request('GET', `/v1/widget?site_id=${site.site_id}`)).body.form.token;
    const [[code, values]] = await codes(site, await asGuest(site, '192.0.2.12', 'A plain comment', { form_token: fresh }));
    expect([code, values]).toEqual(['form_too_fast', { seconds: expect.any(Number), minimum: 2 }]);
    expect(values.seconds).toBeLessThan(2);
    expect(await codes(site, await asGuest(site, '192.0.2.13', 'What a Bargain'))).toEqual([['suspect_word', { word: 'bargain' }]]);
    expect(await codes(site, await asGuest(site, '192.0.2.14', 'See https://a.example and https://b.example'))).toEqual([['too_many_links', { links: 2, maximum: 1 }]]);
    const copy = 'The very same words, sent twice by one guest';
    await asGuest(site, '192.0.2.15', copy);
    expect(await codes(site, await asGuest(site, '192.0.2.15', copy))).toEqual([['duplicate_same_author', {}]]);

    const linked = await siteWith();
    expect(await codes(linked, await asGuest(linked, '192.0.2.16', 'See https://a.example'))).toEqual([['link_new_author', { minimum: 1 }]]);
    const busy = await siteWith({ ip_range_per_10_minutes: 1, thread_per_minute: 1, site_per_minute: 1 });
    const thread = pageUrl();
    await asGuest(busy, '198.51.100.1', 'The first comment of a busy minute', {}, thread);
    expect(await codes(busy, await asGuest(busy, '198.51.100.2', 'The second comment of a busy minute', {}, thread))).toEqual([
      ['velocity_ip_range', { limit: 1 }],
      ['velocity_thread', { limit: 1 }],
      ['velocity_site', { limit: 1 }],
    ]);
  });

  it('are absent from reasons stored before codes existed: the queue shows those as they were', async () => {
    const site = await siteWith();
    const held = await asGuest(site, '192.0.2.20', 'See https://old.example');
    const stored = [{ check: 'links', detail: 'a link from an author with fewer than 1 approved comments' }];
    await parley.app.db.kysely.updateTable('comments').set({ spam_reasons: JSON.stringify(stored) }).where('id', '=', held.body.id).execute();
    expect((await queueItem(site, held.body.id)).spam_reasons).toEqual(stored);
  });
});

describe('velocity', () => {
  it('holds guests of one /24 past the threshold, never refuses them, and lets ten people comment in a minute', async () => {
    const site = await siteWith({ ip_range_per_10_minutes: 3 });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await asGuest(site, `198.51.100.${i + 1}`, `Guest comment number ${i} from one network`)).body.status);
    expect(statuses).toEqual(['published', 'published', 'published', 'pending', 'pending']);
    expect((await asGuest(site, '203.0.113.9', 'And one from elsewhere, published')).body.status).toBe('published');

    const busy = await siteWith();
    const thread = pageUrl();
    const crowd = [];
    for (let i = 0; i < 10; i++) {
      const token = await parley.signIn(busy.api_key, busy.site_id, { id: `fan-${i}`, name: `Fan ${i}` });
      crowd.push(await parley.request('POST', '/v1/comments', { token, body: { site_id: busy.site_id, thread_url: thread, content: `What a match, goal number ${i}!` } }));
    }
    expect(crowd.map((response) => response.body.status)).toEqual(Array(10).fill('published'));
  });

  it('holds comments past the thread threshold, for signed-in users and keys alike', async () => {
    const site = await siteWith({ thread_per_minute: 2 });
    const integration = await parley.request('POST', '/api/keys', { token: site.api_key, body: { role: 'integration', name: 'backend' } });
    const alice = await parley.signIn(site.api_key, site.site_id, { id: 'alice', name: 'Alice' });
    const thread = pageUrl();
    const post = async (token: string, content: string) => (await parley.request('POST', '/v1/comments', { token, body: { site_id: site.site_id, thread_url: thread, content } })).body.status;
    expect([await post(alice, 'first in the thread'), await post(integration.body.api_key, 'second in the thread'), await post(alice, 'third in the thread')]).toEqual([
      'published',
      'published',
      'pending',
    ]);
    // Moderators are never held.
    expect(await post(site.api_key, 'a moderator in the thread')).toBe('published');
  });
});

describe('duplicates', () => {
  it('holds every copy once three authors post one text within an hour, the earlier ones taken off the public list', async () => {
    const site = await siteWith();
    const text = 'Win a free phone today, just reply with your number';
    const first = await asGuest(site, '192.0.2.1', text);
    const second = await asGuest(site, '192.0.2.77', text);
    expect([first.body.status, second.body.status]).toEqual(['published', 'published']);
    const third = await asGuest(site, '203.0.113.50', text.toUpperCase());
    expect(third.body.status).toBe('pending');
    const list = await parley.request('GET', `/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent(first.body.thread_url)}`);
    expect(list.body).toMatchObject({ comments: [], total: 0 });
    const item = await queueItem(site, first.body.id);
    expect(item).toMatchObject({ status: 'pending', spam_reasons: [{ check: 'duplicate', code: 'duplicate_authors', values: { authors: 3 }, detail: 'the same text from 3 or more authors on the site within an hour' }] });
  });
});

describe('history', () => {
  it('holds an author most of whose comments were removed or marked spam', async () => {
    const site = await siteWith();
    const troll = await parley.signIn(site.api_key, site.site_id, { id: 'troll', name: 'Troll' });
    const post = (content: string) => parley.request('POST', '/v1/comments', { token: troll, body: { site_id: site.site_id, thread_url: pageUrl(), content } });
    for (const [i, action] of ['spam', 'remove', 'approve'].entries()) {
      const id = (await post(`Opinion number ${i}, written at length`)).body.id;
      if (action !== 'approve') await parley.request('PATCH', `/v1/comments/${id}/moderate`, { token: site.api_key, body: { action } });
    }
    const next = await post('Another opinion, written at length');
    expect(next.body.status).toBe('pending');
    expect((await queueItem(site, next.body.id)).spam_reasons).toEqual([{ check: 'history', code: 'history', values: { bad: 2, total: 3 }, detail: "2 of the author's 3 comments on the site were removed or marked spam" }]);
  });
});

describe('edits', () => {
  it('go through the text checks: a suspect word holds the edited comment, a banned one refuses the edit', async () => {
    const site = await siteWith({ suspect_words: ['lottery'], banned_words: ['casino'] });
    const alice = await parley.signIn(site.api_key, site.site_id, { id: 'alice', name: 'Alice' });
    const created = await parley.request('POST', '/v1/comments', { token: alice, body: { site_id: site.site_id, thread_url: pageUrl(), content: 'A fine comment' } });
    expect(created.body.status).toBe('published');
    const refused = await parley.request('PATCH', `/v1/comments/${created.body.id}`, { token: alice, body: { content: 'Now about the c4sino' } });
    expect(refused.status).toBe(400);
    const edited = await parley.request('PATCH', `/v1/comments/${created.body.id}`, { token: alice, body: { content: 'Now about the l0ttery' } });
    expect(edited.body).toMatchObject({ status: 'pending', content: 'Now about the l0ttery' });
  });

  it("hold a first link edited into a new author's only published comment, and let approved links be edited around", async () => {
    const site = await siteWith();
    const bob = await parley.signIn(site.api_key, site.site_id, { id: 'bob', name: 'Bob' });
    const post = (content: string) => parley.request('POST', '/v1/comments', { token: bob, body: { site_id: site.site_id, thread_url: pageUrl(), content } });
    const edit = (id: string, content: string) => parley.request('PATCH', `/v1/comments/${id}`, { token: bob, body: { content } });
    const first = await post('A harmless first comment');
    expect(first.body.status).toBe('published');
    const linked = await edit(first.body.id, 'Now selling at https://pills.example/buy');
    expect(linked.body).toMatchObject({ status: 'pending', content: 'Now selling at https://pills.example/buy' });
    expect((await queueItem(site, first.body.id)).spam_reasons).toEqual([{ check: 'links', code: 'link_new_author', values: { minimum: 1 }, detail: 'a link from an author with fewer than 1 approved comments' }]);

    // Approved by a moderator, the link is vouched for: fixing a typo around it holds nothing.
    await parley.request('PATCH', `/v1/comments/${first.body.id}/moderate`, { token: site.api_key, body: { action: 'approve' } });
    expect((await edit(first.body.id, 'Now selling at https://pills.example/buy, fixed')).body.status).toBe('published');
  });
});

describe('proof of work', () => {
  const solved = async (challenge: { algorithm: string; challenge: string; maxnumber?: number; salt: string; signature: string }) => {
    const solution = await solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, challenge.maxnumber).promise;
    return Buffer.from(JSON.stringify({ ...challenge, number: solution!.number })).toString('base64');
  };

  it('always: a guest comment needs a solved challenge from GET /v1/widget, each good for one comment', async () => {
    const site = await siteWith({ proof_of_work: 'always' });
    const form = (await parley.request('GET', `/v1/widget?site_id=${site.site_id}`)).body.form;
    expect(form.challenge).toMatchObject({ algorithm: 'SHA-256', maxnumber: 10_000 });
    const started = performance.now();
    const altcha = await solved(form.challenge);
    console.log(`proof of work solved by Node's WebCrypto in ${Math.round(performance.now() - started)} ms`);
    const accepted = await asGuest(site, '203.0.113.1', 'A guest who did the work', { altcha });
    expect(accepted.body.status).toBe('published');
    const replayed = await asGuest(site, '203.0.113.1', 'The same proof again', { altcha });
    expect(replayed.status).toBe(400);
    expect(replayed.body.errors[0].path).toBe('body/altcha');
    // Signed-in readers do no work.
    const alice = await parley.signIn(site.api_key, site.site_id, { id: 'alice', name: 'Alice' });
    expect((await parley.request('POST', '/v1/comments', { token: alice, body: { site_id: site.site_id, thread_url: pageUrl(), content: 'no work' } })).status).toBe(201);
  });

  it('on velocity: asked of guests only while velocity holds their comments', async () => {
    const site = await siteWith({ proof_of_work: 'velocity', ip_range_per_10_minutes: 1 });
    expect((await asGuest(site, '198.51.100.1', 'First from this network, no work asked')).body.status).toBe('published');
    const refused = await asGuest(site, '198.51.100.2', 'Second from this network, without work');
    expect(refused.status).toBe(400);
    const form = (await parley.request('GET', `/v1/widget?site_id=${site.site_id}`)).body.form;
    const held = await asGuest(site, '198.51.100.2', 'Second from this network, with work', { altcha: await solved(form.challenge) });
    expect(held.body.status).toBe('pending');
  });
});

describe('turned off', () => {
  it('lets every comment through as before', async () => {
    const site = await siteWith({ enabled: false, banned_words: ['casino'] });
    const response = await parley.request('POST', '/v1/comments', { body: { site_id: site.site_id, thread_url: pageUrl(), content: 'casino https://a.example https://b.example' } });
    expect(response.body.status).toBe('published');
    expect((await parley.request('GET', `/v1/widget?site_id=${site.site_id}`)).body.form.min_submit_seconds).toBe(0);
  });
});
