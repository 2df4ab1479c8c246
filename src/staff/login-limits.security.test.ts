import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { parleysPerTest, type ApiResponse, type TestParley } from '../../test/helper.ts';
import { SHARED_REDIS_URL } from '../../test/redis-server.ts';
import { addStaff, STAFF_PASSWORD, staffEmail } from '../../test/staff.ts';

const startParley = parleysPerTest();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Small limits and a short window, so a lock and its end both fit in a test; long enough that a
 * burst of 1,000 attempts ends within it on a busy machine.
 */
const LIMITS = { PARLEY_LOGIN_ATTEMPTS_PER_ACCOUNT: '3', PARLEY_LOGIN_ATTEMPTS_PER_IP: '5', PARLEY_LOGIN_WINDOW: '15s', TRUST_PROXY: '127.0.0.1' };

function login(parley: TestParley, email: string, password: string, ip: string) {
  return parley.request('POST', '/api/auth/login', { body: { email, password }, headers: { 'x-forwarded-for': ip } });
}

/** Sends the attempts 50 at a time, as a brute-force client would. */
async function burst(count: number, attempt: (i: number) => Promise<ApiResponse>): Promise<ApiResponse[]> {
  const answers: ApiResponse[] = [];
  for (let start = 0; start < count; start += 50) {
    answers.push(...(await Promise.all(Array.from({ length: Math.min(50, count - start) }, (_, i) => attempt(start + i)))));
  }
  return answers;
}

function statuses(answers: ApiResponse[]): Record<number, number> {
  const counted: Record<number, number> = {};
  for (const { status } of answers) counted[status] = (counted[status] ?? 0) + 1;
  return counted;
}

function expectLocked(answer: ApiResponse) {
  expect(answer.status).toBe(429);
  expect(answer.body).toMatchObject({ code: 'rate_limited', detail: expect.stringMatching(/^Too many failed sign-ins/) });
  expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(answer.headers.get('set-cookie')).toBeNull();
}

/** 3 free wrong guesses (LIMITS), then one after 1 s, 2 s, 4 s… of the seconds since `started`; the rest 429. */
function expectHeldPastFree(answers: ApiResponse[], started: number) {
  const counted = statuses(answers);
  expect(counted[401]).toBeGreaterThanOrEqual(4);
  expect(counted[401]).toBeLessThanOrEqual(3 + Math.ceil(Math.log2((Date.now() - started) / 1000 + 1)) + 1);
  expect(counted[401] + counted[429]).toBe(answers.length);
}

describe('failed staff sign-ins', () => {
  it('1,000 wrong passwords from one address end in 429s, the right one too, until the window passes', async () => {
    const parley = await startParley(LIMITS);
    const site = await parley.newSite();
    const { email } = await addStaff(parley, site.account_id, 'owner');
    // Against the real account and against addresses that do not exist, alike.
    const answers = await burst(1000, (i) => login(parley, i % 2 ? email : staffEmail('nobody'), `guess ${i}`, '203.0.113.7'));
    expect(statuses(answers)).toEqual({ 401: 5, 429: 995 });
    expectLocked(answers.find((answer) => answer.status === 429)!);
    const locked = await login(parley, email, STAFF_PASSWORD, '203.0.113.7');
    expectLocked(locked);
    await sleep(Number(locked.headers.get('retry-after')) * 1000);
    const after = await login(parley, email, STAFF_PASSWORD, '203.0.113.7');
    expect(after.status).toBe(200);
    expect(after.headers.get('set-cookie')).toMatch(/^parley_staff=stfs_/);
  }, 90_000);

  it('1,000 wrong passwords from 1,000 addresses against one account end in 429s: each guess past the third waits twice as long as the one before', async () => {
    const parley = await startParley(LIMITS);
    const site = await parley.newSite();
    const { email } = await addStaff(parley, site.account_id, 'owner');
    const started = Date.now();
    expectHeldPastFree(await burst(1000, (i) => login(parley, email, `guess ${i}`, `10.0.${i >> 8}.${i & 255}`)), started);
    const locked = await login(parley, email, STAFF_PASSWORD, '198.51.100.1');
    expectLocked(locked);
    expect(locked.body.detail).toContain('for this account');
    // Another person is not held by it.
    const colleague = await addStaff(parley, site.account_id, 'admin');
    expect((await login(parley, colleague.email, STAFF_PASSWORD, '198.51.100.1')).status).toBe(200);
    await sleep(Number(locked.headers.get('retry-after')) * 1000);
    expect((await login(parley, email, STAFF_PASSWORD, '198.51.100.1')).status).toBe(200);
  }, 90_000);

  it('hold an account a growing while after each wrong guess past the free ones, never for the whole window at once', async () => {
    const parley = await startParley(LIMITS);
    const site = await parley.newSite();
    const { email } = await addStaff(parley, site.account_id, 'owner');
    for (let i = 0; i < 3; i++) expect((await login(parley, email, `guess ${i}`, `10.2.0.${i}`)).status).toBe(401);
    // Each guess past the free ones holds the account: 1 s, then 2 s, then 4 s (a slow machine may see a hold end before it asks).
    const waits: number[] = [];
    for (let i = 3; waits.length === 0 || waits[waits.length - 1] < 4; i++) {
      const answer = await login(parley, email, `guess ${i}`, `10.2.0.${i}`);
      if (answer.status === 401) continue;
      expectLocked(answer);
      waits.push(Number(answer.headers.get('retry-after')));
      await sleep(waits[waits.length - 1] * 1000);
    }
    expect(waits).toEqual([...waits].sort((a, b) => a - b));
    expect(Math.max(...waits)).toBeLessThan(8);
    expect((await login(parley, email, STAFF_PASSWORD, '10.2.1.3')).status).toBe(200);
  }, 90_000);

  it('let the right password through from a device that signed in as this person before, while the account is held', async () => {
    const parley = await startParley(LIMITS);
    const site = await parley.newSite();
    const { email } = await addStaff(parley, site.account_id, 'owner');
    const first = await login(parley, email, STAFF_PASSWORD, '198.51.100.7');
    const device = first.headers.getSetCookie().find((cookie) => cookie.startsWith('parley_device='))!;
    expect(device).toMatch(/; Path=\/api\/auth\/; .*HttpOnly/);
    const deviceCookie = device.split(';')[0];
    const colleague = await addStaff(parley, site.account_id, 'admin');
    const theirs = (await login(parley, colleague.email, STAFF_PASSWORD, '198.51.100.8')).headers.getSetCookie().find((cookie) => cookie.startsWith('parley_device='))!.split(';')[0];
    // Wrong guesses from elsewhere until the account is held for 4 s: time enough for the checks below.
    for (let i = 0; ; i++) {
      const guess = await login(parley, email, `guess ${i}`, `10.3.0.${i}`);
      const wait = Number(guess.headers.get('retry-after') ?? 0);
      if (wait >= 4) break;
      await sleep(wait * 1000);
    }
    const fromDevice = (password: string, ip: string, cookie = deviceCookie) =>
      parley.request('POST', '/api/auth/login', { body: { email, password }, headers: { 'x-forwarded-for': ip, cookie } });
    expectLocked(await login(parley, email, STAFF_PASSWORD, '198.51.100.9'));
    // The cookie proves this person's device only: another person's, or a forged one, is no device.
    expectLocked(await fromDevice(STAFF_PASSWORD, '198.51.100.9', theirs));
    expectLocked(await fromDevice(STAFF_PASSWORD, '198.51.100.9', deviceCookie.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))));
    expect((await fromDevice(STAFF_PASSWORD, '198.51.100.7')).status).toBe(200);
    // Guesses from a known device are limited per device, and per address as every guess is.
    for (let i = 0; i < 3; i++) expect((await fromDevice(`guess ${i}`, `10.4.0.${i}`)).status).toBe(401);
    expect((await fromDevice(STAFF_PASSWORD, '10.4.0.9')).body.detail).toContain('from this device');
  }, 90_000);

  it('count the addresses of one IPv6 /64 as one address, as every other limit does', async () => {
    const parley = await startParley(LIMITS);
    // Each guess from a new address of the /64, at an address of its own: only the IP limit can stop them.
    const answers = await burst(20, (i) => login(parley, staffEmail('sprayed'), `guess ${i}`, `2001:db8:7:9::${(i + 1).toString(16)}`));
    expect(statuses(answers)).toEqual({ 401: 5, 429: 15 });
    expect(answers.find((answer) => answer.status === 429)!.body.detail).toContain('from this address');
    // Another /64 is another client.
    expect((await login(parley, staffEmail('sprayed'), 'guess', '2001:db8:7:a::1')).status).toBe(401);
  }, 90_000);

  it('count only failures: signing in again and again is never locked', async () => {
    const parley = await startParley(LIMITS);
    const site = await parley.newSite();
    const { email } = await addStaff(parley, site.account_id, 'owner');
    for (let i = 0; i < 6; i++) expect((await login(parley, email, STAFF_PASSWORD, '203.0.113.9')).status).toBe(200);
  }, 90_000);

  it('answer an unknown address as a wrong password, in about the same time', async () => {
    const parley = await startParley({ PARLEY_LOGIN_ATTEMPTS_PER_ACCOUNT: '0', PARLEY_LOGIN_ATTEMPTS_PER_IP: '0' });
    const site = await parley.newSite();
    const { email } = await addStaff(parley, site.account_id, 'owner');
    const timed = async (address: string) => {
      const started = performance.now();
      const answer = await login(parley, address, 'not the password', '127.0.0.1');
      return { answer, ms: performance.now() - started };
    };
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 4; i++) {
      const [wrong, missing] = [await timed(email), await timed(staffEmail('nobody'))];
      expect(missing.answer.body).toEqual(wrong.answer.body);
      expect(missing.answer.status).toBe(401);
      known.push(wrong.ms);
      unknown.push(missing.ms);
    }
    const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
    // Both check a password with the same scrypt cost; without the dummy hash the unknown address answers in ~1 ms.
    expect(median(unknown)).toBeGreaterThan(median(known) * 0.5);
    expect(median(unknown)).toBeLessThan(median(known) * 2);
  }, 90_000);
});

describe('failed staff sign-ins through Redis', () => {
  const prefixes: string[] = [];
  afterEach(async () => {
    const redis = new Redis(SHARED_REDIS_URL);
    for (const prefix of prefixes.splice(0)) {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
    }
    redis.disconnect();
  });

  it('are counted exactly across instances', async () => {
    const prefix = `parley-test:${randomBytes(6).toString('hex')}`;
    prefixes.push(prefix);
    const env = { ...LIMITS, PARLEY_LOGIN_WINDOW: '1m', REDIS_URL: SHARED_REDIS_URL, PARLEY_RATE_LIMIT_REDIS_PREFIX: prefix };
    const first = await startParley(env);
    const second = await startParley({ ...env, DATABASE_URL: first.config.databaseUrl });
    const site = await first.newSite();
    const { email } = await addStaff(first, site.account_id, 'owner');
    const started = Date.now();
    expectHeldPastFree(await burst(100, (i) => login(i % 2 ? first : second, email, `guess ${i}`, `10.1.0.${i}`)), started);
  }, 90_000);
});
