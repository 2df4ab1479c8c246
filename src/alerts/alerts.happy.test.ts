import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertBody, startChatReceiver, type ChatKind, type ChatReceiver } from '../../test/chat-receivers.ts';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { sleep, WEBHOOK_TEST_ENV } from '../../test/receiver.ts';

let parley: TestParley;
const chats: ChatReceiver[] = [];
const PUBLIC_URL = 'https://comments.example.com';

beforeAll(async () => {
  parley = await startParley({ ...WEBHOOK_TEST_ENV, PARLEY_PUBLIC_URL: PUBLIC_URL });
});
afterAll(async () => {
  await Promise.all(chats.map((chat) => chat.close()));
  await parley.close();
});

async function chat(kind: ChatKind, fail?: (index: number) => number | null) {
  const started = await startChatReceiver(kind, fail);
  chats.push(started);
  return started;
}

/** A fresh site (comments held for approval when `held`) with one alert of `kind` for `events`. */
async function alertedSite(kind: ChatKind, events: string[], options: { held?: boolean; threshold?: number; fail?: (index: number) => number | null } = {}) {
  const site = await parley.newSite({ siteName: 'The <Harbour> & Gazette', moderation: options.held ? 'all' : 'none' });
  const target = await chat(kind, options.fail);
  const created = await parley.request('POST', `/api/sites/${site.site_id}/alerts`, { token: site.api_key, body: alertBody(target, events, options.threshold) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { site, target, alert: created.body };
}

const post = (site: { site_id: string }, token: string, content: string) =>
  parley.request('POST', '/v1/comments', { token, body: { site_id: site.site_id, thread_url: pageUrl(), content } });

const dashboardLink = (siteId: string, comment: { id: string; thread_url: string }) =>
  `${PUBLIC_URL}/dashboard/thread?${new URLSearchParams({ site: siteId, url: comment.thread_url, comment: comment.id })}`;

describe('a held comment', () => {
  it.each(['slack', 'discord', 'telegram', 'matrix'] as const)('reaches %s in the format its API takes, with the site, an excerpt and the link to the card', async (kind) => {
    const { site, target } = await alertedSite(kind, ['comment.held'], { held: true });
    const reader = await parley.signIn(site.api_key, site.site_id, { id: 'ann', name: 'Ann <admin>' });
    const comment = (await post(site, reader, 'Is the ferry *really* running on Sunday? <@everyone>')).body;
    expect(comment.status).toBe('pending');
    const [request] = await target.waitFor(1);
    expect(target.problems[0]).toEqual([]);

    const link = dashboardLink(site.site_id, comment);
    const headline = 'A comment by Ann <admin> on The <Harbour> & Gazette waits for approval';
    const text = 'Is the ferry *really* running on Sunday? <@everyone>';
    const body = request.body;
    if (kind === 'slack') {
      expect(body.text).toBe(`A comment by Ann &lt;admin&gt; on The &lt;Harbour&gt; &amp; Gazette waits for approval\n>Is the ferry *really* running on Sunday? &lt;@everyone&gt;\n<${link}|Open in the dashboard>`);
      expect(body.blocks[1].elements[0]).toEqual({ type: 'button', text: { type: 'plain_text', text: 'Open in the dashboard' }, url: link });
    }
    if (kind === 'discord') {
      expect(body.content).toBe('A comment by Ann <admin> on The <Harbour> & Gazette waits for approval');
      expect(body.embeds).toEqual([{ title: 'Open in the dashboard', url: link, description: 'Is the ferry \\*really\\* running on Sunday? <@everyone>' }]);
      expect(body.allowed_mentions).toEqual({ parse: [] });
    }
    if (kind === 'telegram') {
      expect(body.parse_mode).toBe('HTML');
      expect(body.text).toBe(
        `<b>A comment by Ann &lt;admin&gt; on The &lt;Harbour&gt; &amp; Gazette waits for approval</b>\n<blockquote>Is the ferry *really* running on Sunday? &lt;@everyone&gt;</blockquote>\n<a href="${link.replace(/&/g, '&amp;')}">Open in the dashboard</a>`,
      );
    }
    if (kind === 'matrix') {
      expect(body.body).toBe(`${headline}\n> ${text}\nOpen in the dashboard: ${link}`);
      expect(body.format).toBe('org.matrix.custom.html');
      expect(body.formatted_body).toContain('<strong>A comment by Ann &lt;admin&gt; on The &lt;Harbour&gt; &amp; Gazette waits for approval</strong>');
      // The transaction id is the delivery's: a retry the homeserver already took is not posted twice.
      expect(request.url).toMatch(/\/send\/m\.room\.message\/del_[0-9a-z]{26}$/);
    }
  });

  it('is not announced when the comment is published', async () => {
    const { site, target } = await alertedSite('slack', ['comment.held']);
    expect((await post(site, site.api_key, 'Published at once')).body.status).toBe('published');
    await sleep(300);
    expect(target.received).toHaveLength(0);
  });
});

describe('a flagged comment', () => {
  it('is announced once, when the readers flagging it reach the threshold', async () => {
    const { site, target } = await alertedSite('discord', ['comment.flagged'], { threshold: 2 });
    const author = await parley.signIn(site.api_key, site.site_id, { id: 'seller', name: 'Seller' });
    const comment = (await post(site, author, 'Buy cheap watches')).body;
    const flag = async (name: string) => {
      const token = await parley.signIn(site.api_key, site.site_id, { id: name, name });
      expect((await parley.request('POST', `/v1/comments/${comment.id}/flag`, { token, body: {} })).status).toBe(200);
    };
    await flag('first');
    await sleep(300);
    expect(target.received).toHaveLength(0);
    await flag('second');
    const [request] = await target.waitFor(1);
    expect(request.body.content).toBe('2 readers flagged a comment by Seller on The <Harbour> & Gazette');
    // Flags past the threshold, or after a moderator dismissed them, do not announce it again.
    await flag('third');
    await sleep(300);
    expect(target.received).toHaveLength(1);
  });
});

describe("a reader's first comment", () => {
  it('is announced, and their second is not', async () => {
    const { site, target } = await alertedSite('telegram', ['comment.first']);
    const reader = await parley.signIn(site.api_key, site.site_id, { id: 'newcomer', name: 'Newcomer' });
    await post(site, reader, 'Hello, first time here');
    const [request] = await target.waitFor(1);
    expect(target.problems[0]).toEqual([]);
    expect(request.body.text).toContain('<b>Newcomer wrote their first comment on The &lt;Harbour&gt; &amp; Gazette</b>');
    await post(site, reader, 'And again');
    await sleep(300);
    expect(target.received).toHaveLength(1);
  });
});

describe('delivery', () => {
  it('retries a chat that answers 5xx, and the log shows every attempt and the body as sent', async () => {
    const { site, target, alert } = await alertedSite('matrix', ['comment.held'], { held: true, fail: (index) => (index < 2 ? 503 : null) });
    await post(site, await parley.signIn(site.api_key, site.site_id, { id: 'ann', name: 'Ann' }), 'Held, then retried');
    const requests = await target.waitFor(3);
    expect(target.problems).toEqual([[], [], []]);
    // Every attempt is the same request: the same transaction id and body.
    expect(new Set(requests.map((r) => r.url)).size).toBe(1);
    expect(new Set(requests.map((r) => r.raw)).size).toBe(1);
    let log;
    for (let tries = 0; tries < 100; tries++) {
      log = await parley.request('GET', `/api/sites/${site.site_id}/alerts/${alert.id}/deliveries`, { token: site.api_key });
      if (log.body.deliveries[0]?.state === 'succeeded') break;
      await sleep(50);
    }
    const [delivery] = log!.body.deliveries;
    expect(delivery).toMatchObject({ event: 'comment.held', state: 'succeeded', test: false, body: requests[2].raw });
    expect(delivery.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([503, 503, 200]);
    // The site's webhook log is its webhook's only.
    const webhooks = await parley.request('GET', `/api/sites/${site.site_id}/webhooks/deliveries`, { token: site.api_key });
    expect(webhooks.body.deliveries).toEqual([]);
  });

  it('sends a test message at once and answers with the attempt', async () => {
    const { site, target, alert } = await alertedSite('slack', ['comment.held']);
    const sent = await parley.request('POST', `/api/sites/${site.site_id}/alerts/${alert.id}/test`, { token: site.api_key });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ event: 'alert.test', test: true, state: 'succeeded', attempts: [{ number: 1, status_code: 200, error: null }] });
    expect(target.problems[0]).toEqual([]);
    expect(target.received[0].body.text).toContain('Test message from Parley: comments on The &lt;Harbour&gt; &amp; Gazette that need a moderator will be announced here.');
  });

  it('speaks the site\'s language', async () => {
    const { site, target } = await alertedSite('matrix', ['comment.held'], { held: true });
    expect((await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { language: 'de' } })).status).toBe(200);
    await post(site, await parley.signIn(site.api_key, site.site_id, { id: 'ann', name: 'Ann' }), 'Guten Tag');
    const [request] = await target.waitFor(1);
    expect(request.body.body).not.toContain('waits for approval');
    expect(request.body.body).toContain('Im Dashboard öffnen');
  });
});

describe('the alerts API', () => {
  it('lists, changes and removes alerts, and never shows a token', async () => {
    const { site, target, alert } = await alertedSite('telegram', ['comment.held']);
    expect(alert.target).toEqual({ url: `${target.targetUrl}/`, chat_id: '-1001234567890', room: null, token_set: true });
    expect(JSON.stringify(alert)).not.toContain('AAHk');
    const changed = await parley.request('PATCH', `/api/sites/${site.site_id}/alerts/${alert.id}`, {
      token: site.api_key,
      body: { target: { url: target.targetUrl, chat_id: '@harbour_mods' }, events: ['comment.held', 'comment.first'], flag_threshold: 3 },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    // The token left out of the change is kept.
    expect(changed.body).toMatchObject({ target: { chat_id: '@harbour_mods', token_set: true }, events: ['comment.held', 'comment.first'], flag_threshold: 3 });
    const listed = await parley.request('GET', `/api/sites/${site.site_id}/alerts`, { token: site.api_key });
    expect(listed.body.alerts).toEqual([changed.body]);
    expect((await parley.request('DELETE', `/api/sites/${site.site_id}/alerts/${alert.id}`, { token: site.api_key })).status).toBe(204);
    expect((await parley.request('GET', `/api/sites/${site.site_id}/alerts`, { token: site.api_key })).body.alerts).toEqual([]);
  });
});
