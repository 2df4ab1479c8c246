import { describe, expect, it } from 'vitest';
import { parleysPerTest, type TestParley } from '../../../test/helper.ts';
import { mailingParleysPerTest } from '../../../test/mailbox.ts';
import { mailedCode, READER_PAGE, signInSite, verify } from '../../../test/sign-in-codes.ts';

const start = parleysPerTest();
const mailingParley = mailingParleysPerTest(start);

/** A code that is not `code`. */
const other = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

async function signInRows(parley: TestParley) {
  const db = parley.app.db.kysely;
  return {
    codes: await db.selectFrom('sign_in_codes').select(['id', 'failed_attempts', 'used_at']).orderBy('created_at').execute(),
    identities: await db.selectFrom('reader_identities').select('id').execute(),
    sessions: (await db.selectFrom('sessions').select('id').execute()).length,
  };
}

describe('email sign-in refuses', () => {
  it('a wrong code with 401 wrong_code, counting only the attempt; the fifth wrong one ends the code, right or not after it', async () => {
    const { parley, box } = await mailingParley();
    const site = await signInSite(parley);
    const { code } = await mailedCode(parley, box, site.site_id, 'guess@example.com');
    const before = await signInRows(parley);
    for (let attempt = 1; attempt <= 4; attempt++) {
      const wrong = await verify(parley, site.site_id, 'guess@example.com', other(code));
      expect(wrong.status).toBe(401);
      expect(wrong.body).toMatchObject({ code: 'unauthorized', reason: 'wrong_code' });
    }
    expect(await signInRows(parley)).toEqual({ ...before, codes: [{ ...before.codes[0], failed_attempts: 4 }] });
    const fifth = await verify(parley, site.site_id, 'guess@example.com', other(code));
    expect(fifth.body).toMatchObject({ status: 401, reason: 'too_many_attempts' });
    expect(fifth.body.detail).toContain('ask for a new code');
    const right = await verify(parley, site.site_id, 'guess@example.com', code);
    expect(right.body).toMatchObject({ status: 401, reason: 'too_many_attempts' });
    expect((await signInRows(parley)).identities).toEqual([]);
    // A new code works.
    expect((await verify(parley, site.site_id, 'guess@example.com', (await mailedCode(parley, box, site.site_id, 'guess@example.com')).code)).status).toBe(201);
  });

  it('lets the fifth try be the right one', async () => {
    const { parley, box } = await mailingParley();
    const site = await signInSite(parley);
    const { code } = await mailedCode(parley, box, site.site_id, 'fifth@example.com');
    for (let attempt = 1; attempt <= 4; attempt++) await verify(parley, site.site_id, 'fifth@example.com', other(code));
    expect((await verify(parley, site.site_id, 'fifth@example.com', code)).status).toBe(201);
  });

  it('compares no more than five codes however many guesses come at once', async () => {
    const { parley, box } = await mailingParley();
    const site = await signInSite(parley);
    const { code } = await mailedCode(parley, box, site.site_id, 'flood@example.com');
    const guesses = Array.from({ length: 20 }, (_, i) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0'));
    const answers = await Promise.all(guesses.map((guess) => verify(parley, site.site_id, 'flood@example.com', guess)));
    expect(answers.every((answer) => answer.status === 401)).toBe(true);
    expect((await signInRows(parley)).codes[0].failed_attempts).toBe(5);
  });

  it('an expired code, and its link', async () => {
    const { parley, box } = await mailingParley();
    const site = await signInSite(parley);
    const { code, link } = await mailedCode(parley, box, site.site_id, 'late@example.com', READER_PAGE);
    await parley.app.db.kysely.updateTable('sign_in_codes').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).execute();
    expect((await verify(parley, site.site_id, 'late@example.com', code)).body).toMatchObject({ status: 401, reason: 'wrong_code' });
    expect((await parley.request('GET', link)).status).toBe(404);
    expect((await parley.request('POST', link)).status).toBe(404);
    expect((await signInRows(parley)).sessions).toBe(0);
  });

  it('a used code, and the link of a code used', async () => {
    const { parley, box } = await mailingParley();
    const site = await signInSite(parley);
    const { code, link } = await mailedCode(parley, box, site.site_id, 'twice@example.com', READER_PAGE);
    expect((await verify(parley, site.site_id, 'twice@example.com', code)).status).toBe(201);
    expect((await verify(parley, site.site_id, 'twice@example.com', code)).body).toMatchObject({ status: 401, reason: 'wrong_code' });
    expect((await parley.request('POST', link)).status).toBe(404);
  });

  it('a code that a newer one superseded, and its link', async () => {
    const { parley, box } = await mailingParley();
    const site = await signInSite(parley);
    const older = await mailedCode(parley, box, site.site_id, 'newer@example.com', READER_PAGE);
    const newer = await mailedCode(parley, box, site.site_id, 'newer@example.com');
    expect((await verify(parley, site.site_id, 'newer@example.com', older.code)).status).toBe(older.code === newer.code ? 201 : 401);
    expect((await parley.request('GET', older.link)).status).toBe(404);
    if (older.code !== newer.code) expect((await verify(parley, site.site_id, 'newer@example.com', newer.code)).status).toBe(201);
  });

  it("another site's code, and another address's", async () => {
    const { parley, box } = await mailingParley();
    const site = await signInSite(parley);
    const elsewhere = await signInSite(parley, 'Elsewhere');
    const { code } = await mailedCode(parley, box, site.site_id, 'mine@example.com');
    await mailedCode(parley, box, elsewhere.site_id, 'mine@example.com');
    await mailedCode(parley, box, site.site_id, 'yours@example.com');
    const mine = await parley.app.db.kysely.selectFrom('sign_in_codes').select('code_hash').where('site_id', '=', site.site_id).where('email', '=', 'mine@example.com').executeTakeFirstOrThrow();
    // Even the same code's hash proves nothing for another row: copied there, it is refused.
    await parley.app.db.kysely.updateTable('sign_in_codes').set({ code_hash: mine.code_hash }).where('email', '=', 'yours@example.com').execute();
    expect((await verify(parley, elsewhere.site_id, 'mine@example.com', code)).status).toBe(401);
    expect((await verify(parley, site.site_id, 'yours@example.com', code)).status).toBe(401);
    expect((await signInRows(parley)).identities).toEqual([]);
    expect((await verify(parley, site.site_id, 'mine@example.com', code)).status).toBe(201);
  });

  it('a return_to on another domain with 400, writing and mailing nothing', async () => {
    const { parley, box } = await mailingParley();
    const site = await signInSite(parley);
    const asked = await parley.request('POST', '/v1/auth/email', { body: { site_id: site.site_id, email: 'away@example.com', return_to: 'https://evil.example.net/steal' } });
    expect(asked.status).toBe(400);
    expect(asked.body).toMatchObject({ code: 'validation_failed', errors: [{ path: 'body/return_to' }] });
    expect((await signInRows(parley)).codes).toEqual([]);
    expect(await parley.app.db.kysely.selectFrom('mail_outbox').select('id').execute()).toEqual([]);
    expect(box.offered).toBe(0);
  });

  it('with 409 on a site without domains, a site with email sign-in off, and a server without mail', async () => {
    const { parley } = await mailingParley();
    const bare = await parley.newSite();
    const off = await signInSite(parley);
    expect((await parley.request('PATCH', `/api/sites/${off.site_id}`, { token: off.api_key, body: { email_sign_in: false } })).status).toBe(200);
    const mailless = await start();
    const mailSite = await signInSite(mailless);
    const cases: Array<[TestParley, string, string]> = [
      [parley, bare.site_id, 'lists its domains'],
      [parley, off.site_id, 'email_sign_in is off'],
      [mailless, mailSite.site_id, 'PARLEY_SMTP_URL'],
    ];
    for (const [server, siteId, why] of cases) {
      for (const [path, body] of [
        ['/v1/auth/email', { site_id: siteId, email: 'x@example.com' }],
        ['/v1/auth/email/verify', { site_id: siteId, email: 'x@example.com', code: '123456' }],
      ] as const) {
        const refused = await server.request('POST', path, { body });
        expect(refused.status).toBe(409);
        expect(refused.body).toMatchObject({ code: 'conflict', detail: expect.stringContaining(why) });
      }
    }
    expect((await signInRows(parley)).codes).toEqual([]);
  });

  it('a link whose site turned email sign-in off since, with 409', async () => {
    const { parley, box } = await mailingParley();
    const site = await signInSite(parley);
    const { link } = await mailedCode(parley, box, site.site_id, 'turned@example.com', READER_PAGE);
    await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { email_sign_in: false } });
    expect((await parley.request('POST', link)).status).toBe(409);
  });

  it('malformed input with 400 and an unknown site with 404', async () => {
    const { parley } = await mailingParley();
    const site = await signInSite(parley);
    for (const body of [{ site_id: site.site_id, email: 'not an address' }, { site_id: site.site_id }, { site_id: site.site_id, email: 'a@example.com', return_to: 'javascript:alert(1)' }]) {
      expect((await parley.request('POST', '/v1/auth/email', { body })).status).toBe(400);
    }
    for (const code of ['12345', '1234567', 'abcdef', '']) expect((await verify(parley, site.site_id, 'a@example.com', code)).status).toBe(400);
    expect((await parley.request('POST', '/v1/auth/email', { body: { site_id: 'site_nope', email: 'a@example.com' } })).status).toBe(404);
    expect((await parley.request('GET', '/v1/auth/email/link?token=sil_nope')).status).toBe(404);
    expect((await parley.request('GET', '/v1/auth/email/link')).status).toBe(400);
  });
});
