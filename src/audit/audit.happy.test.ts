import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { addStaff, signInStaff } from '../../test/staff.ts';

let parley: TestParley;
beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

interface Entry {
  action: string;
  actor: { id: string; name: string };
  target: string | null;
  data: Record<string, unknown>;
}

describe('the audit log of an account', () => {
  it('names the person or the key behind every management change, oldest last, and never a secret', async () => {
    const site = await parley.newSite();
    const owner = await signInStaff(parley, (await addStaff(parley, site.account_id, 'owner', { name: 'Olive' })).email);
    const asOwner = (method: string, path: string, body?: unknown) => parley.request(method, path, { headers: owner.headers, body });
    const asKey = (method: string, path: string, body?: unknown) => parley.request(method, path, { token: site.api_key, body });

    const created = await asOwner('POST', '/api/sites', { name: 'Second blog' });
    await asOwner('PATCH', `/api/sites/${created.body.id}`, { moderation_mode: 'all', webhook_secret: 'a-secret-nobody-may-read' });
    const key = await asOwner('POST', '/api/keys', { role: 'moderator', name: 'mod bot' });
    await asKey('PATCH', `/api/keys/${key.body.id}`, { name: 'moderation bot' });
    await asOwner('DELETE', `/api/keys/${key.body.id}`);
    const thread = pageUrl();
    await asKey('POST', '/v1/comments', { site_id: site.site_id, thread_url: thread, content: 'hello' });
    const threadId = (await asKey('GET', `/api/sites/${site.site_id}/threads?url=${encodeURIComponent(thread)}`)).body.threads[0].id;
    await asOwner('PATCH', `/api/sites/${site.site_id}/threads/${threadId}`, { closed: true });
    const user = await parley.request('POST', '/v1/sessions', { token: site.api_key, body: { site_id: site.site_id, user: { id: 'troll', name: 'Troll' } } });
    const ban = await asOwner('POST', `/api/sites/${site.site_id}/bans`, { user_id: user.body.user.id, reason: 'trolling' });
    await asKey('DELETE', `/api/sites/${site.site_id}/bans/${ban.body.id}`);
    await asOwner('DELETE', `/api/sites/${site.site_id}/sessions?user_id=${user.body.user.id}`);
    await asOwner('DELETE', `/api/sites/${created.body.id}`, { confirm: 'Second blog' });

    const log = await asOwner('GET', `/api/accounts/${site.account_id}/audit-log?limit=50`);
    expect(log.status).toBe(200);
    const olive = { id: owner.body.staff.id, name: 'Olive' };
    const bootstrapKey = { id: expect.stringMatching(/^key_/), name: 'bootstrap admin key' };
    const cli = { id: 'cli', name: 'parley CLI' };
    expect(log.body.entries.map((entry: Entry) => [entry.action, entry.actor, entry.target])).toEqual([
      ['site.deleted', olive, created.body.id],
      ['sessions.ended', olive, site.site_id],
      ['ban.lifted', bootstrapKey, ban.body.id],
      ['ban.created', olive, ban.body.id],
      ['thread.closed', olive, threadId],
      ['key.revoked', olive, key.body.id],
      ['key.renamed', bootstrapKey, key.body.id],
      ['key.created', olive, key.body.id],
      ['site.updated', olive, created.body.id],
      ['site.created', olive, created.body.id],
      // The first run's site and key.
      ['key.created', cli, expect.stringMatching(/^key_/)],
      ['site.created', cli, site.site_id],
    ]);
    const updated = log.body.entries.find((entry: Entry) => entry.action === 'site.updated');
    expect(updated.data).toEqual({ settings: ['moderation_mode', 'webhook_secret'] });
    expect(JSON.stringify(log.body)).not.toContain('a-secret-nobody-may-read');
    expect(log.body.entries.find((entry: Entry) => entry.action === 'key.renamed').data).toEqual({ from: 'mod bot', to: 'moderation bot' });
  });
});
