import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../helper.ts';
import { seedDatabase, spawnServer, withDatabase, type ChildServer } from './child-server.ts';

/**
 * API keys and session tokens exist in clear only in the one response that hands them out: never
 * in the database, never in the logs, even at LOG_LEVEL=trace.
 */
let database: Awaited<ReturnType<typeof freshDatabaseUrl>>;
let server: ChildServer;
let seeded: { site_id: string; api_key: string };
const secrets: string[] = [];
const siteViews: Array<{ status: number; body: unknown }> = [];

async function call(method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  const response = await fetch(server.url + path, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  database = await freshDatabaseUrl();
  seeded = await seedDatabase(database.url);
  secrets.push(seeded.api_key);
  server = await spawnServer(database.url, { LOG_LEVEL: 'trace', PARLEY_WEBHOOK_ALLOW_PRIVATE: 'true', PARLEY_WEBHOOK_TIMEOUT: '1s' });
  const admin = { authorization: `Bearer ${seeded.api_key}` };
  const key = await call('POST', '/api/keys', admin, { role: 'moderator' });
  secrets.push(key.body.api_key);
  const session = await call('POST', '/v1/sessions', { 'x-api-key': key.body.api_key }, { site_id: seeded.site_id, user: { id: 'u1', name: 'U' } });
  secrets.push(session.body.token);
  const asUser = { authorization: `Bearer ${session.body.token}` };
  const comment = await call('POST', '/v1/comments', asUser, { site_id: seeded.site_id, thread_url: 'https://logs.example.com/1', content: 'hi' });
  await call('POST', `/v1/comments/${comment.body.id}/vote`, asUser, { vote_type: 'up' });
  await call('GET', `/v1/comments/${comment.body.id}`, { 'x-api-key': seeded.api_key });
  await call('PATCH', `/v1/comments/${comment.body.id}/moderate`, { 'x-api-key': key.body.api_key }, { action: 'approve' });
  await call('GET', '/v1/sites', { authorization: `bearer   ${key.body.api_key}  ` });
  // Failures log more: a 401 with a near-miss of a real key, a malformed header, a revoked key.
  await call('GET', '/v1/sites', { authorization: `Bearer ${seeded.api_key.slice(0, -1)}X` });
  await call('GET', '/v1/sites', { authorization: `Basic ${seeded.api_key}` });
  await call('DELETE', `/api/keys/${key.body.id}`, admin);
  await call('GET', '/v1/sites', { 'x-api-key': key.body.api_key });
  const webhookSecret = `whsec_${Buffer.from('a webhook secret of 32 bytes....').toString('base64')}`;
  secrets.push(webhookSecret);
  siteViews.push(await call('PATCH', `/api/sites/${seeded.site_id}`, admin, { webhook_url: 'http://127.0.0.1:9/hook', webhook_secret: webhookSecret, webhook_events: ['comment.created'] }));
  siteViews.push(await call('GET', `/api/sites/${seeded.site_id}`, admin));
  siteViews.push(await call('GET', '/v1/sites', admin));
  await call('POST', '/v1/comments', admin, { site_id: seeded.site_id, thread_url: 'https://logs.example.com/2', content: 'delivered' });
  siteViews.push(await call('POST', `/api/sites/${seeded.site_id}/webhooks/test`, admin, {}));
  siteViews.push(await call('GET', `/api/sites/${seeded.site_id}/webhooks/deliveries`, admin));
  // The widget's demo page takes a session token in its query string.
  await fetch(`${server.url}/?session_token=${session.body.token}`);
  await call('DELETE', '/v1/sessions/current', asUser);
  await call('GET', '/v1/sites', asUser);
  server.process.kill('SIGTERM');
  await server.exited;
}, 60_000);
afterAll(() => database.drop());

describe('secrets', () => {
  it('never appear in the logs, even at LOG_LEVEL=trace', () => {
    const log = server.output();
    // Every request above was logged (the start's readiness probes aside, however many it took).
    const logged = log.split('\n').filter((line) => line.includes('incoming request') && !line.includes('/readyz'));
    expect(logged).toHaveLength(20);
    for (const secret of secrets) expect(log.includes(secret), `a secret ${secret.slice(0, 6)}… is in the log`).toBe(false);
    // nor any long fragment of one
    for (const secret of secrets) expect(log.includes(secret.slice(-24))).toBe(false);
  });

  it("a session token in the widget demo page's query string was written to the request log", () => {
    expect(server.output()).toContain('/?session_token=[redacted]');
  });

  it('webhook secrets are never returned in full once set', () => {
    expect(siteViews.map((view) => view.status)).toEqual([200, 200, 200, 200, 200]);
    const webhookSecret = secrets.at(-1)!;
    for (const view of siteViews) expect(JSON.stringify(view.body)).not.toContain(webhookSecret.slice(6, 30));
    expect((siteViews[0].body as { webhook_secret: string }).webhook_secret).toMatch(/^whsec_…/);
  });

  it('are stored only as SHA-256 hashes', async () => {
    const dump = await withDatabase(database.url, async (db) => {
      const tables = await db.kysely.introspection.getTables();
      const rows = await Promise.all(tables.map((table) => db.kysely.selectFrom(table.name as never).selectAll().execute()));
      return JSON.stringify(rows);
    });
    // The webhook secret is the HMAC key itself, so it is stored; keys and tokens are not.
    for (const secret of secrets.filter((s) => !s.startsWith('whsec_'))) {
      expect(dump.includes(secret.slice(-24))).toBe(false);
      expect(dump).toContain(createHash('sha256').update(secret).digest('hex'));
    }
  });
});
