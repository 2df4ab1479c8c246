import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../ids.ts';
import { startParley, pageUrl, type TestParley } from '../../test/helper.ts';
import { startChatReceiver, type ChatReceiver } from '../../test/chat-receivers.ts';
import { sleep } from '../../test/receiver.ts';

// Private addresses are refused here, as in production (no PARLEY_WEBHOOK_ALLOW_PRIVATE).
let parley: TestParley;
let chat: ChatReceiver;

beforeAll(async () => {
  parley = await startParley({ PARLEY_WEBHOOK_RETRY_DELAYS: '100ms', PARLEY_WEBHOOK_TIMEOUT: '2s' });
  chat = await startChatReceiver('slack');
});
afterAll(async () => {
  await chat.close();
  await parley.close();
});

describe('a target on a private address', () => {
  it('is refused when saved', async () => {
    const site = await parley.newSite();
    const answer = await parley.request('POST', `/api/sites/${site.site_id}/alerts`, { token: site.api_key, body: { kind: 'slack', target: { url: chat.url }, events: ['comment.held'] } });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'validation_failed', errors: [{ path: 'body/target/url' }] });
  });

  it('is refused at the attempt too, and nothing reaches it', async () => {
    const site = await parley.newSite({ moderation: 'all' });
    const id = newId('alr');
    await parley.app.db.kysely
      .insertInto('site_alerts')
      .values({ id, site_id: site.site_id, kind: 'slack', url: chat.url, token: null, chat_id: null, room: null, events: '["comment.held"]', flag_threshold: 1, created_at: new Date().toISOString() })
      .execute();
    const reader = await parley.signIn(site.api_key, site.site_id, { id: 'ann', name: 'Ann' });
    await parley.request('POST', '/v1/comments', { token: reader, body: { site_id: site.site_id, thread_url: pageUrl(), content: 'Held' } });
    let deliveries: any[] = [];
    for (let tries = 0; tries < 100 && deliveries[0]?.state !== 'failed'; tries++) {
      await sleep(50);
      deliveries = (await parley.request('GET', `/api/sites/${site.site_id}/alerts/${id}/deliveries`, { token: site.api_key })).body.deliveries;
    }
    expect(deliveries[0].state).toBe('failed');
    expect(deliveries[0].attempts.map((a: { error: string }) => a.error)).toEqual(['blocked_address', 'blocked_address']);
    expect(chat.received).toHaveLength(0);
  });
});

describe('a target', () => {
  it.each([
    [{ kind: 'slack', target: { url: 'https://hooks.slack.com/services/T/B/X', token: 'x' } }, 'body/target/token'],
    [{ kind: 'telegram', target: { url: 'https://api.telegram.org', chat_id: '1' } }, 'body/target/token'],
    [{ kind: 'telegram', target: { url: 'https://api.telegram.org', token: '1:a' } }, 'body/target/chat_id'],
    [{ kind: 'matrix', target: { url: 'https://matrix.org', token: 't', room: '#lobby:matrix.org' } }, 'body/target/room'],
  ])('missing or extra fields for its kind are refused (%j)', async (body, path) => {
    const site = await parley.newSite();
    const answer = await parley.request('POST', `/api/sites/${site.site_id}/alerts`, { token: site.api_key, body: { ...body, events: ['comment.held'] } });
    expect(answer.status).toBe(400);
    expect(answer.body.errors[0].path).toBe(path);
  });

  it("of another site is not found", async () => {
    const [mine, theirs] = [await parley.newSite(), await parley.newSite()];
    const id = newId('alr');
    await parley.app.db.kysely
      .insertInto('site_alerts')
      .values({ id, site_id: theirs.site_id, kind: 'slack', url: 'https://hooks.slack.com/x', token: null, chat_id: null, room: null, events: '["comment.held"]', flag_threshold: 1, created_at: new Date().toISOString() })
      .execute();
    expect((await parley.request('DELETE', `/api/sites/${mine.site_id}/alerts/${id}`, { token: mine.api_key })).status).toBe(404);
  });
});
