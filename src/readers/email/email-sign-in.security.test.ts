import { describe, expect, it } from 'vitest';
import { freshDatabaseUrl, parleysPerTest, type TestParley } from '../../../test/helper.ts';
import { seedDatabase, spawnServer, withDatabase } from '../../../test/hardening/child-server.ts';
import { endedAfterEach, mailingEnv, mailingParleysPerTest, startMailbox } from '../../../test/mailbox.ts';
import { mailedCode, READER_DOMAIN, READER_PAGE, signInMail, signInSite, verify } from '../../../test/sign-in-codes.ts';
import { WRONG_CODES_PER_CLIENT } from '../../ratelimits/sign-in-mails.ts';

const mailingParley = mailingParleysPerTest(parleysPerTest());
const started = endedAfterEach();

/** Asks for a code as the client at `ip` (the servers here trust 127.0.0.1 to name it). */
function ask(parley: TestParley, siteId: string, email: string, ip = '203.0.113.1') {
  return parley.request('POST', '/v1/auth/email', { body: { site_id: siteId, email }, headers: { 'x-forwarded-for': ip } });
}

const codeRows = (parley: TestParley) => parley.app.db.kysely.selectFrom('sign_in_codes').select('id').execute();

describe('email sign-in tells no one what an address did', () => {
  it('answers a known address and a never-seen one alike, and mails both', async () => {
    const { parley, box } = await mailingParley();
    const site = await signInSite(parley);
    const known = await verify(parley, site.site_id, 'known@example.com', (await mailedCode(parley, box, site.site_id, 'known@example.com')).code);
    expect(known.status).toBe(201);
    const answers = [];
    for (const email of ['known@example.com', 'never-seen@example.com']) {
      const answer = await parley.request('POST', '/v1/auth/email', { body: { site_id: site.site_id, email } });
      answers.push({ status: answer.status, body: answer.body, type: answer.headers.get('content-type') });
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]).toMatchObject({ status: 202, body: { sent: true, expires_in: 600 } });
    const mails = await box.waitFor(3);
    expect(mails.slice(1).map((mail) => (mail.to as { value: Array<{ address: string }> }).value[0].address).sort()).toEqual(['known@example.com', 'never-seen@example.com']);
  });
});

describe('email sign-in takes as long for any address', () => {
  it('answers a known address and a never-seen one in the same time, within noise', async () => {
    const { parley, box } = await mailingParley({ PARLEY_RATE_LIMIT_SIGN_IN_MAILS_PER_ADDRESS: '0', PARLEY_RATE_LIMIT_SIGN_IN_MAILS_PER_CLIENT: '0', PARLEY_RATE_LIMIT_SIGN_IN_MAILS_PER_SITE: '0' });
    const site = await signInSite(parley);
    expect((await verify(parley, site.site_id, 'known@example.com', (await mailedCode(parley, box, site.site_id, 'known@example.com')).code)).status).toBe(201);
    const times: Record<string, number[]> = { known: [], unknown: [] };
    // Alternated, so that a slower moment of the machine falls on both alike; the median drops the outliers.
    for (let round = 0; round < 25; round++) {
      for (const [kind, email] of [['known', 'known@example.com'], ['unknown', `never-seen-${round}@example.com`]] as const) {
        const start = process.hrtime.bigint();
        expect((await parley.request('POST', '/v1/auth/email', { body: { site_id: site.site_id, email } })).status).toBe(202);
        times[kind].push(Number(process.hrtime.bigint() - start) / 1e6);
      }
    }
    const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const ratio = median(times.known) / median(times.unknown);
    // No branch on the address: a difference an attacker could read would be a whole query or a mail, several times the noise.
    expect(ratio).toBeGreaterThan(0.6);
    expect(ratio).toBeLessThan(1 / 0.6);
  });
});

describe('email sign-in limits', () => {
  const limited = (limits: Record<string, string>) => mailingParley({ TRUST_PROXY: '127.0.0.1', PARLEY_RATE_LIMIT_SIGN_IN_MAILS_PER_ADDRESS: '100', PARLEY_RATE_LIMIT_SIGN_IN_MAILS_PER_CLIENT: '100', PARLEY_RATE_LIMIT_SIGN_IN_MAILS_PER_SITE: '100', ...limits });

  it('refuses a client past its limit with 429, Retry-After and a clear detail, and mails nothing more', async () => {
    const { parley } = await limited({ PARLEY_RATE_LIMIT_SIGN_IN_MAILS_PER_CLIENT: '2' });
    const site = await signInSite(parley);
    for (const email of ['a@example.com', 'b@example.com']) expect((await ask(parley, site.site_id, email)).status).toBe(202);
    const refused = await ask(parley, site.site_id, 'c@example.com');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'rate_limited', detail: expect.stringContaining('from this network') });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // The same /64 is the same client.
    expect((await ask(parley, site.site_id, 'd@example.com', '2001:db8:1:2::1')).status).toBe(202);
    expect((await ask(parley, site.site_id, 'd@example.com', '2001:db8:1:2::2')).status).toBe(202);
    expect((await ask(parley, site.site_id, 'd@example.com', '2001:db8:1:2:ffff::3')).status).toBe(429);
    expect(await codeRows(parley)).toHaveLength(4);
  });

  it('refuses an address past its limit, from any client', async () => {
    const { parley } = await limited({ PARLEY_RATE_LIMIT_SIGN_IN_MAILS_PER_ADDRESS: '2' });
    const site = await signInSite(parley);
    for (const ip of ['203.0.113.1', '203.0.113.2']) expect((await ask(parley, site.site_id, 'victim@example.com', ip)).status).toBe(202);
    const refused = await ask(parley, site.site_id, 'Victim@Example.com', '203.0.113.3');
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toContain('this address');
    expect(refused.headers.get('retry-after')).not.toBeNull();
    expect((await ask(parley, site.site_id, 'someone-else@example.com', '203.0.113.3')).status).toBe(202);
  });

  it('refuses a site past its limit', async () => {
    const { parley } = await limited({ PARLEY_RATE_LIMIT_SIGN_IN_MAILS_PER_SITE: '2' });
    const site = await signInSite(parley);
    const other = await signInSite(parley, 'Other');
    expect((await ask(parley, site.site_id, 'a@example.com', '203.0.113.1')).status).toBe(202);
    expect((await ask(parley, site.site_id, 'b@example.com', '203.0.113.2')).status).toBe(202);
    const refused = await ask(parley, site.site_id, 'c@example.com', '203.0.113.3');
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toContain('on this site');
    expect((await ask(parley, other.site_id, 'c@example.com', '203.0.113.3')).status).toBe(202);
  });

  it('refuses a client that tried too many wrong codes, even with a right one', async () => {
    const { parley, box } = await limited({});
    const site = await signInSite(parley);
    const { code } = await mailedCode(parley, box, site.site_id, 'target@example.com');
    const guess = (email: string, tried: string) =>
      parley.request('POST', '/v1/auth/email/verify', { body: { site_id: site.site_id, email, code: tried }, headers: { 'x-forwarded-for': '198.51.100.7' } });
    for (let i = 0; i < WRONG_CODES_PER_CLIENT; i++) expect((await guess(`guess-${i}@example.com`, '000000')).status).toBe(401);
    const refused = await guess('target@example.com', code);
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toContain('wrong sign-in codes');
    // Another client still signs the reader in.
    expect((await verify(parley, site.site_id, 'target@example.com', code)).status).toBe(201);
  });
});

describe('codes and links', () => {
  it('are never written to the log, nor kept in the outbox once mailed', async () => {
    const box = await startMailbox();
    started.boxes.push(box);
    const database = await freshDatabaseUrl();
    started.databases.push(database);
    const seeded = await seedDatabase(database.url);
    const server = await spawnServer(database.url, { ...mailingEnv(box), LOG_LEVEL: 'trace' });
    started.servers.push(server);
    const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      fetch(server.url + path, { method, redirect: 'manual', headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    await call('PATCH', `/api/sites/${seeded.site_id}`, { domains: [READER_DOMAIN] }, { authorization: `Bearer ${seeded.api_key}` });

    const email = 'logged@example.com';
    const mailed = [];
    for (const returnTo of [READER_PAGE, undefined]) {
      expect((await call('POST', '/v1/auth/email', { site_id: seeded.site_id, email, return_to: returnTo })).status).toBe(202);
      mailed.push(signInMail((await box.waitFor(mailed.length + 1))[mailed.length]));
    }
    const [byLink, byCode] = mailed;
    const token = new URL(byLink.link, 'http://x').searchParams.get('token')!;
    expect((await call('GET', byLink.link)).status).toBe(404); // superseded by the second
    expect((await call('POST', '/v1/auth/email/verify', { site_id: seeded.site_id, email, code: byCode.code === '000000' ? '000001' : '000000' })).status).toBe(401);
    const signedIn = await call('POST', '/v1/auth/email/verify', { site_id: seeded.site_id, email, code: byCode.code });
    expect(signedIn.status).toBe(201);
    const session = ((await signedIn.json()) as { token: string }).token;
    // A link that works, opened and used.
    expect((await call('POST', '/v1/auth/email', { site_id: seeded.site_id, email, return_to: READER_PAGE })).status).toBe(202);
    const third = signInMail((await box.waitFor(3))[2]);
    expect((await call('GET', third.link)).status).toBe(200);
    const used = await call('POST', third.link, undefined, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(used.status).toBe(303);
    const linkSession = /parley_session=(sess_\w+)/.exec(used.headers.get('location')!)![1];

    const thirdToken = new URL(third.link, 'http://x').searchParams.get('token')!;
    const deadline = Date.now() + 5000;
    while (!server.output().includes('link?token=[redacted]') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const log = server.output();
    expect(log).toContain('/v1/auth/email/link?token=[redacted]');
    for (const secret of [token, thirdToken, session, linkSession]) expect(log).not.toContain(secret);
    for (const { code } of [...mailed, third]) expect(log).not.toMatch(new RegExp(`(?<![\\d.])${code}(?!\\d)`));
    const outbox = () => withDatabase(database.url, (db) => db.kysely.selectFrom('mail_outbox').select(['kind', 'state', 'data']).execute());
    await expect.poll(outbox, { timeout: 5000 }).toEqual(Array.from({ length: 3 }, () => ({ kind: 'sign_in', state: 'sent', data: '{}' })));
  });
});
