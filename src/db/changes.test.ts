import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { freshDatabaseUrl, pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { seedDatabase, spawnServer } from '../../test/hardening/child-server.ts';
import { SHARED_REDIS_URL } from '../../test/redis-server.ts';
import { changesChannel } from './changes.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function redisClient(): Redis {
  const redis = new Redis(SHARED_REDIS_URL);
  cleanups.push(async () => redis.disconnect());
  return redis;
}

/** A Redis key prefix of the test's own (as a deployment configures one), its keys deleted afterwards. */
function ownPrefix(): string {
  const prefix = `parley-test:${randomBytes(6).toString('hex')}`;
  cleanups.push(async () => {
    const redis = new Redis(SHARED_REDIS_URL);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });
  return prefix;
}

async function parleyWith(env: Record<string, string>): Promise<TestParley> {
  const parley = await startParley(env);
  cleanups.push(() => parley.close());
  return parley;
}

async function until(done: () => Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function subscribers(redis: Redis, channel: string): Promise<number> {
  const [, count] = (await redis.pubsub('NUMSUB', channel)) as [string, number];
  return Number(count);
}

describe('the change channel in Redis', () => {
  it('ignores a malformed or wrong-shaped message, logs it once per kind, and the instance keeps serving and hearing changes', async () => {
    const database = await freshDatabaseUrl();
    cleanups.push(() => database.drop());
    const site = await seedDatabase(database.url);
    const env = { REDIS_URL: SHARED_REDIS_URL, PARLEY_RATE_LIMIT_REDIS_PREFIX: ownPrefix() };
    const server = await spawnServer(database.url, env);
    cleanups.push(async () => {
      server.process.kill('SIGTERM');
      await server.exited;
    });
    const writer = await parleyWith({ ...env, DATABASE_URL: database.url });
    const redis = redisClient();
    const channel = changesChannel(env.PARLEY_RATE_LIMIT_REDIS_PREFIX);
    await until(async () => (await subscribers(redis, channel)) === 2, 'both instances subscribed');

    const thread = pageUrl();
    const list = `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${site.site_id}`;
    const total = async () => ((await (await fetch(server.url + list)).json()) as { total: number }).total;
    expect(await total()).toBe(0);

    for (const garbage of ['not json', '{', 'not json either', 'null', '42', '[]', '{"from":"x"}', '{"from":"x","siteId":5,"threadKey":null}', '{"from":"x","siteId":"s","threadKey":7}']) {
      await redis.publish(channel, garbage);
    }
    await writer.request('POST', '/v1/comments', { token: site.api_key, body: { thread_url: thread, site_id: site.site_id, content: 'after the garbage' } });

    await until(async () => (await total()) === 1, "the other instance's change reached the server's cached list");
    expect(server.process.exitCode).toBeNull();
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const warnings = server.output().split('\n').filter((line) => line.includes('not a change announcement'));
    expect(warnings).toHaveLength(2);
    expect(warnings.map((line) => JSON.parse(line).problem).sort()).toEqual(['not_json', 'wrong_shape']);
  }, 60_000);

  it('keeps deployments with different key prefixes apart: each announces and listens under its own prefix only', async () => {
    const [prefixA, prefixB] = [ownPrefix(), ownPrefix()];
    const deploymentA = await parleyWith({ REDIS_URL: SHARED_REDIS_URL, PARLEY_RATE_LIMIT_REDIS_PREFIX: prefixA });
    const deploymentB = await parleyWith({ REDIS_URL: SHARED_REDIS_URL, PARLEY_RATE_LIMIT_REDIS_PREFIX: prefixB });
    const redis = redisClient();
    const [channelA, channelB] = [changesChannel(prefixA), changesChannel(prefixB)];
    await until(async () => (await subscribers(redis, channelA)) === 1 && (await subscribers(redis, channelB)) === 1, 'each deployment subscribed to its own channel');

    const heard: Array<{ channel: string; siteId: string }> = [];
    const listener = redisClient();
    listener.on('message', (channel: string, message: string) => heard.push({ channel, siteId: JSON.parse(message).siteId }));
    await listener.subscribe(channelA, channelB);
    const [siteA, siteB] = [await deploymentA.newSite(), await deploymentB.newSite()];
    for (const [deployment, site] of [[deploymentA, siteA], [deploymentB, siteB]] as const) {
      const created = await deployment.request('POST', '/v1/comments', { token: site.api_key, body: { thread_url: pageUrl(), site_id: site.site_id, content: 'hello' } });
      expect(created.status).toBe(201);
    }
    const pairs = () => [...new Set(heard.map(({ channel, siteId }) => `${channel} ${siteId}`))].sort();
    await until(async () => pairs().length >= 2, 'both announcements heard');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(pairs()).toEqual([`${channelA} ${siteA.site_id}`, `${channelB} ${siteB.site_id}`].sort());
  });
});
