import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, withDatabase, type ChildServer } from '../hardening/child-server.ts';
import { dialectName, freshDatabaseUrl, type FreshDatabase } from '../helper.ts';
import { sleep, startReceiver, type Receiver } from '../receiver.ts';

/**
 * Two `parley serve` processes side by side on one PostgreSQL database and one Redis, behind no
 * proxy, as docs/production.md, "Several instances: PostgreSQL and Redis", describes. Runs in the PostgreSQL pass of `npm test`
 * (scripts/test.ts fails that pass if this file is skipped in it). On SQLite it is skipped.
 */
const REDIS_URL = process.env.PARLEY_TEST_REDIS_URL || 'redis://127.0.0.1:6379';
const SESSION_COMMENTS_PER_HOUR = 20;
const WEBHOOK_TIMEOUT_MS = 4_000;
/** What src/webhooks/service.ts leaseMs makes of that time-out: how long a dead instance's claim holds. */
const LEASE_MS = 2 * WEBHOOK_TIMEOUT_MS + 5_000;

interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

async function call<T = any>(server: ChildServer, method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<Reply<T>> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(server.url + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** Runs `work` for 0..count-1, at most `parallel` at a time. */
async function inParallel<T>(count: number, parallel: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await work(i);
      }
    }),
  );
  return results;
}

/** Waits until `value()` has stayed the same (and above 0) for `quietMs`. */
async function settled(what: string, value: () => number, quietMs: number, timeoutMs: number): Promise<number> {
  let last = value();
  let since = Date.now();
  await until(what, () => {
    const now = value();
    if (now !== last || now === 0) {
      last = now;
      since = Date.now();
    }
    return Date.now() - since >= quietMs;
  }, timeoutMs);
  return last;
}

async function until(what: string, done: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(50);
  }
}

const deliveryIdOf = (received: { headers: Record<string, unknown> }) => String(received.headers['x-service-delivery']);

describe.skipIf(dialectName !== 'postgres')('two instances on one PostgreSQL and one Redis', () => {
  let database: FreshDatabase;
  let receiver: Receiver;
  /** The receiver's answer: at once, or held until the test lets it go (attempts stay in flight). */
  let holding = false;
  const held: Array<() => void> = [];
  const redisPrefix = `parley-test:scale:${randomBytes(6).toString('hex')}`;
  let a: ChildServer;
  let b: ChildServer;
  const demo = { site_id: '', api_key: '' };
  const thread = (name: string) => `https://scale.example.com/${name}`;
  const listThread = (server: ChildServer, url: string) =>
    call(server, 'GET', `/v1/comments?site_id=${demo.site_id}&thread_url=${encodeURIComponent(url)}&sort=oldest`);

  beforeAll(async () => {
    database = await freshDatabaseUrl();
    receiver = await startReceiver(() => (holding ? new Promise<number>((answer) => held.push(() => answer(200))) : 200));
    const env = {
      REDIS_URL,
      PARLEY_RATE_LIMIT_REDIS_PREFIX: redisPrefix,
      PARLEY_RATE_LIMIT_KEY_PER_MINUTE: '0',
      PARLEY_RATE_LIMIT_IP_PER_MINUTE: '0',
      PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: '0',
      PARLEY_RATE_LIMIT_SESSION_COMMENTS_PER_HOUR: String(SESSION_COMMENTS_PER_HOUR),
      PARLEY_WEBHOOK_ALLOW_PRIVATE: 'true',
      PARLEY_WEBHOOK_TIMEOUT: `${WEBHOOK_TIMEOUT_MS}ms`,
      // No retry within the test: a second request for a delivery can only be a second claim.
      PARLEY_WEBHOOK_RETRY_DELAYS: '1h',
    };
    // Started together on the empty database: both migrate and look for a demo site at once.
    [a, b] = await Promise.all([spawnServer(database.url, env), spawnServer(database.url, env)]);
  });

  afterAll(async () => {
    for (const server of [a, b]) {
      if (server?.process.exitCode === null && server.process.signalCode === null) {
        server.process.kill('SIGTERM');
        await server.exited;
      }
    }
    await receiver?.close();
    await database?.drop();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${redisPrefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('exactly one of them creates the demo site on the empty database', async () => {
    const announcement = /export SITE_ID=(\S+)\n\s*export PARLEY_KEY=(\S+)/;
    await until('a demo site announced', () => [a, b].some((server) => announcement.test(server.output())), 5_000);
    await sleep(300);
    const announcing = [a, b].filter((server) => announcement.test(server.output()));
    expect(announcing).toHaveLength(1);
    const [, siteId, apiKey] = announcement.exec(announcing[0].output())!;
    Object.assign(demo, { site_id: siteId, api_key: apiKey });
    const accounts = await withDatabase(database.url, (db) => db.kysely.selectFrom('accounts').select('id').execute());
    expect(accounts).toHaveLength(1);
    for (const server of [a, b]) expect((await call(server, 'GET', `/api/sites/${demo.site_id}`, { token: demo.api_key })).status).toBe(200);
  });

  it('reads through one what was written, edited and deleted through the other, at once', async () => {
    const url = thread('conversation');
    const first = await call(a, 'POST', '/v1/comments', { token: demo.api_key, body: { site_id: demo.site_id, thread_url: url, content: 'written through A' } });
    expect(first.status).toBe(201);
    const contents = async (server: ChildServer) => {
      const list = await listThread(server, url);
      expect(list.status).toBe(200);
      return list.body.comments.map((c: any) => [c.content, c.is_deleted]);
    };
    expect(await contents(b)).toEqual([['written through A', false]]);

    // Every read below is of a thread the reading instance has just read itself, so a response
    // cache that missed the other instance's write would answer stale.
    for (let round = 1; round <= 5; round += 1) {
      const [writer, reader] = round % 2 === 1 ? [a, b] : [b, a];
      const edited = await call(writer, 'PATCH', `/v1/comments/${first.body.id}`, { token: demo.api_key, body: { content: `edit ${round}` } });
      expect(edited.status).toBe(200);
      expect(await contents(reader)).toEqual([[`edit ${round}`, false]]);
      expect((await call(reader, 'GET', `/v1/comments/${first.body.id}`)).body.content).toBe(`edit ${round}`);
    }

    const reply = await call(b, 'POST', '/v1/comments', { token: demo.api_key, body: { site_id: demo.site_id, thread_url: url, content: 'reply through B', parent_id: first.body.id } });
    expect(reply.status).toBe(201);
    expect((await call(a, 'GET', `/v1/comments/${first.body.id}`)).body.replies.map((r: any) => r.content)).toEqual(['reply through B']);

    expect((await call(a, 'DELETE', `/v1/comments/${first.body.id}`, { token: demo.api_key })).status).toBe(200);
    const afterDelete = await listThread(b, url);
    expect(afterDelete.body.comments.map((c: any) => [c.content, c.is_deleted])).toEqual([[null, true]]);
    expect(afterDelete.body.comments[0].replies.map((r: any) => r.content)).toEqual(['reply through B']);
    expect((await call(b, 'DELETE', `/v1/comments/${reply.body.id}`, { token: demo.api_key })).status).toBe(200);
    // A deleted comment without visible replies leaves the thread: B read it with the reply above.
    expect((await call(a, 'GET', `/v1/comments/${first.body.id}`)).body.replies).toEqual([]);
    expect((await listThread(b, url)).body.comments).toEqual([]);
  });

  it(`holds a user's ${SESSION_COMMENTS_PER_HOUR} comments an hour in sum across both`, async () => {
    const session = await call(a, 'POST', '/v1/sessions', { token: demo.api_key, body: { site_id: demo.site_id, user: { id: 'busy-writer', name: 'Busy writer' } } });
    expect(session.status).toBe(201);
    const attempts = await inParallel(2 * SESSION_COMMENTS_PER_HOUR, 8, (i) =>
      call(i % 2 === 0 ? a : b, 'POST', '/v1/comments', {
        token: session.body.token,
        body: { site_id: demo.site_id, thread_url: thread('limited'), content: `comment ${i}` },
      }),
    );
    const statuses = attempts.map((attempt) => attempt.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(SESSION_COMMENTS_PER_HOUR);
    expect(statuses.filter((status) => status === 429)).toHaveLength(SESSION_COMMENTS_PER_HOUR);
    // Both instances turned requests away: the count they share is Redis's, not their own.
    for (let parity = 0; parity < 2; parity += 1) expect(attempts.filter((attempt, i) => i % 2 === parity && attempt.status === 429).length).toBeGreaterThan(0);
    const refused = attempts.find((attempt) => attempt.status === 429)!;
    expect(refused.headers.get('x-ratelimit-limit')).toBe(String(SESSION_COMMENTS_PER_HOUR));
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  /** The whole delivery log of the demo site, read through `server`. */
  async function deliveryLog(server: ChildServer): Promise<any[]> {
    const deliveries: any[] = [];
    for (let page = 1; ; page += 1) {
      const log = await call(server, 'GET', `/api/sites/${demo.site_id}/webhooks/deliveries?limit=100&page=${page}`, { token: demo.api_key });
      expect(log.status).toBe(200);
      deliveries.push(...log.body.deliveries);
      if (deliveries.length >= log.body.total) return deliveries;
    }
  }

  it('sends each of 200 deliveries exactly once while both run', async () => {
    const subscribed = await call(a, 'PATCH', `/api/sites/${demo.site_id}`, { token: demo.api_key, body: { webhook_url: receiver.url, webhook_events: ['comment.created'] } });
    expect(subscribed.status).toBe(200);
    const created = await inParallel(200, 10, (i) =>
      call(i % 2 === 0 ? a : b, 'POST', '/v1/comments', { token: demo.api_key, body: { site_id: demo.site_id, thread_url: thread(`events/${i % 20}`), content: `event ${i}` } }),
    );
    expect(created.map((c) => c.status)).toEqual(Array(200).fill(201));

    await receiver.waitFor(200, 30_000);
    await sleep(1_000); // time for a second attempt of anything, were one to be made
    const ids = receiver.received.map(deliveryIdOf);
    expect(ids).toHaveLength(200);
    expect(new Set(ids).size).toBe(200);
    expect(new Set(receiver.received.map((r) => r.body.data.comment.id))).toEqual(new Set(created.map((c) => c.body.id)));

    const log = await deliveryLog(b);
    expect(new Set(log.map((d) => d.id))).toEqual(new Set(ids));
    expect(log.map((d) => [d.state, d.attempts.map((attempt: any) => attempt.status_code)])).toEqual(Array(200).fill(['succeeded', [200]]));
  });

  it('loses nothing when one is killed mid-delivery: the other takes over its claims once their lease expires', async () => {
    const startedAt = Date.now();
    const before = receiver.received.length;
    holding = true;
    const count = 40;
    const created = await inParallel(count, 10, (i) =>
      call(i % 2 === 0 ? a : b, 'POST', '/v1/comments', { token: demo.api_key, body: { site_id: demo.site_id, thread_url: thread('crash'), content: `crash ${i}` } }),
    );
    expect(created.map((c) => c.status)).toEqual(Array(count).fill(201));

    // Each instance fills its attempts towards this receiver (as many as its per-host cap allows,
    // src/webhooks/worker.ts); none gets an answer yet. Once the attempts have run a second, the cap
    // is the small one and neither starts more.
    await settled('both instances sending', () => held.length, 1_500, 10_000);
    a.process.kill('SIGKILL');
    await a.exited;
    // A's attempts in flight: their connections closed under the receiver with no answer sent.
    const abandoned = () => receiver.received.slice(before).filter((r) => r.abandoned).length;
    const killedInFlight = await settled('the killed instance’s connections closed', abandoned, 500, 5_000);
    holding = false;
    held.splice(0).forEach((answer) => answer());

    const total = 200 + count;
    let log: any[] = [];
    await until('every delivery succeeded', async () => (log = await deliveryLog(b)).filter((d) => d.state === 'succeeded').length === total, LEASE_MS + 20_000);

    const phase = receiver.received.slice(before);
    const inFlightAtKill = phase.filter((r) => r.abandoned).map(deliveryIdOf);
    const answered = phase.filter((r) => !r.abandoned);
    // At least once: every delivery answered exactly once; the only repeats are the attempts that
    // were in flight at the kill, each repeated once, and not before their lease ran out.
    expect(new Set(answered.map((r) => r.body.data.comment.id))).toEqual(new Set(created.map((c) => c.body.id)));
    expect(answered).toHaveLength(count);
    expect(new Set(answered.map(deliveryIdOf)).size).toBe(count);
    expect(new Set(inFlightAtKill).size).toBe(killedInFlight);
    for (const id of inFlightAtKill) {
      const retaken = answered.find((r) => deliveryIdOf(r) === id)!;
      expect(retaken.at - startedAt).toBeGreaterThanOrEqual(LEASE_MS);
    }
    expect(phase).toHaveLength(count + killedInFlight);
    // The killed attempts were never recorded: the log shows one attempt, the one that succeeded.
    expect(log.map((d) => [d.state, d.attempts.map((attempt: any) => attempt.status_code)])).toEqual(Array(total).fill(['succeeded', [200]]));
    expect(b.process.exitCode).toBeNull();
  }, 60_000);
});
