import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../auth/secrets.ts';
import { ERASED_NAME } from '../../commenters/erase.ts';
import { newId } from '../../ids.ts';
import { freshDatabaseUrl, pageUrl, parleysPerTest, startParley, type TestParley } from '../../../test/helper.ts';
import { eraseDueAccounts } from './erasure.ts';
import { identityProvider, signedInReader } from './readers.fixture.ts';

let parley: TestParley;
beforeAll(async () => {
  parley = await startParley({ PARLEY_ERASE_GRACE: '7d' });
});
afterAll(() => parley.close());
const startOwn = parleysPerTest();

const db = () => parley.app.db.kysely;
const userRow = (id: string) => db().selectFrom('site_users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const DAY = 24 * 3600 * 1000;

async function post(target: TestParley, siteId: string, token: string, thread: string, content: string) {
  const response = await target.request('POST', '/v1/comments', { token, body: { site_id: siteId, thread_url: thread, content } });
  expect(response.status).toBe(201);
  return response.body.id as string;
}

/** A code mailed to the address, not used yet (the email sign-in's own row). */
async function pendingCode(siteId: string, email: string) {
  const now = Date.now();
  await db()
    .insertInto('sign_in_codes')
    .values({ id: newId('sic'), site_id: siteId, email, code_hash: hashSecret('123456'), link_token_hash: hashSecret(newId('sic')), return_to: null, failed_attempts: 0, expires_at: new Date(now + 600_000).toISOString(), used_at: null, created_at: new Date(now).toISOString() })
    .execute();
}

describe('a reader deleting their account', () => {
  it('signs them out everywhere, and signing in again within the grace period keeps the account', async () => {
    const site = await parley.newSite();
    const phone = await signedInReader(parley, site.site_id, { email: 'fay@example.com', name: 'Fay' });
    const laptop = await signedInReader(parley, site.site_id, { email: 'fay@example.com' });
    const before = Date.now();
    const deleted = await parley.request('DELETE', '/v1/me', { token: phone.token });
    expect(deleted.status).toBe(200);
    expect(deleted.body.erased).toBe(false);
    expect(Date.parse(deleted.body.erase_after) - before).toBeGreaterThanOrEqual(7 * DAY);
    expect(Date.parse(deleted.body.erase_after) - before).toBeLessThan(7 * DAY + 60_000);
    for (const session of [phone, laptop]) expect((await parley.request('GET', '/v1/me', { token: session.token })).status).toBe(401);
    // Not yet due: the sweeper leaves it.
    await eraseDueAccounts(parley.app.db);
    expect((await userRow(phone.user.id)).erased_at).toBeNull();

    const back = await signedInReader(parley, site.site_id, { email: 'fay@example.com' });
    expect(back.user.id).toBe(phone.user.id);
    const me = await parley.request('GET', '/v1/me', { token: back.token });
    expect(me.body).toMatchObject({ user: { name: 'Fay' }, erase_after: null });
  });

  it('is erased once due: identities, codes, addresses and name go, comments stay under the placeholder, lists already read show it', async () => {
    const site = await parley.newSite();
    const github = await identityProvider(parley, site.site_id, 'github', 'GitHub');
    const gil = await signedInReader(parley, site.site_id, { email: 'gil@example.com', name: 'Gil' });
    await signedInReader(parley, site.site_id, { provider: github, subject: 'gil-gh', email: 'gil@example.com' });
    const thread = pageUrl();
    const comment = await post(parley, site.site_id, gil.token, thread, 'Green tea, always.');
    await pendingCode(site.site_id, 'gil@example.com');
    const list = `/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent(thread)}`;
    expect((await parley.request('GET', list)).body.comments[0].author_name).toBe('Gil');

    expect((await parley.request('DELETE', '/v1/me', { token: gil.token })).status).toBe(200);
    await db().updateTable('site_users').set({ erase_after: new Date(Date.now() - 1000).toISOString() }).where('id', '=', gil.user.id).execute();
    expect(await eraseDueAccounts(parley.app.db)).toBe(1);
    expect(await eraseDueAccounts(parley.app.db)).toBe(0);

    const row = await userRow(gil.user.id);
    expect(row).toMatchObject({ name: ERASED_NAME, email: null, avatar_url: null, erase_after: null, erased_at: expect.any(String) });
    expect(row.external_id).toBe(`erased:${gil.user.id}`);
    expect(await db().selectFrom('reader_identities').select('id').where('user_id', '=', gil.user.id).execute()).toEqual([]);
    expect(await db().selectFrom('sign_in_codes').select('id').where('site_id', '=', site.site_id).execute()).toEqual([]);
    expect((await parley.request('GET', list)).body.comments[0]).toMatchObject({ id: comment, author_name: ERASED_NAME });

    const audit = await parley.request('GET', `/api/accounts/${site.account_id}/audit-log`, { token: site.api_key });
    const entry = audit.body.entries.find((e: { action: string }) => e.action === 'user.erased');
    expect(entry).toMatchObject({ actor: { id: gil.user.id, name: 'the reader themselves' }, target: gil.user.id, data: { sign_in_methods: 2, comments_renamed: 1 } });
    expect(JSON.stringify(audit.body)).not.toMatch(/gil@example|"Gil"/);

    // The same address signs in as someone new.
    const again = await signedInReader(parley, site.site_id, { email: 'gil@example.com', name: 'Gil' });
    expect(again.user.id).not.toBe(gil.user.id);
  });

  it('is kept when the reader signed in after it fell due but before the sweeper came', async () => {
    const site = await parley.newSite();
    const hal = await signedInReader(parley, site.site_id, { email: 'hal@example.com', name: 'Hal' });
    await parley.request('DELETE', '/v1/me', { token: hal.token });
    await db().updateTable('site_users').set({ erase_after: new Date(Date.now() - 1000).toISOString() }).where('id', '=', hal.user.id).execute();
    await signedInReader(parley, site.site_id, { email: 'hal@example.com' });
    expect(await eraseDueAccounts(parley.app.db)).toBe(0);
    expect(await userRow(hal.user.id)).toMatchObject({ name: 'Hal', erased_at: null, erase_after: null });
  });

  it('is erased at once without a grace period, and lists already read stop showing the name', async () => {
    const now = await startOwn({ PARLEY_ERASE_GRACE: '0' });
    const site = await now.newSite();
    const ida = await signedInReader(now, site.site_id, { email: 'ida@example.com', name: 'Ida' });
    const thread = pageUrl();
    const comment = await post(now, site.site_id, ida.token, thread, 'Hello');
    const list = `/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent(thread)}`;
    expect((await now.request('GET', list)).body.comments[0].author_name).toBe('Ida');
    expect((await now.request('GET', `/v1/comments/${comment}`)).body.author_name).toBe('Ida');

    const deleted = await now.request('DELETE', '/v1/me', { token: ida.token });
    expect(deleted.body).toEqual({ erased: true, erase_after: null });
    expect((await now.request('GET', list)).body.comments[0].author_name).toBe(ERASED_NAME);
    expect((await now.request('GET', `/v1/comments/${comment}`)).body.author_name).toBe(ERASED_NAME);
    expect((await now.request('GET', '/v1/me', { token: ida.token })).status).toBe(401);
  });

  it('is erased by the sweeper a starting server runs', async () => {
    const database = await freshDatabaseUrl();
    const first = await startParley({ DATABASE_URL: database.url });
    let second: TestParley | undefined;
    try {
      const site = await first.newSite();
      const jo = await signedInReader(first, site.site_id, { email: 'jo@example.com', name: 'Jo' });
      await first.request('DELETE', '/v1/me', { token: jo.token });
      await first.app.db.kysely.updateTable('site_users').set({ erase_after: new Date(Date.now() - 1000).toISOString() }).where('id', '=', jo.user.id).execute();
      second = await startParley({ DATABASE_URL: database.url });
      const erasedAt = async () => (await second!.app.db.kysely.selectFrom('site_users').select('erased_at').where('id', '=', jo.user.id).executeTakeFirstOrThrow()).erased_at;
      await expect.poll(erasedAt, { timeout: 10_000 }).not.toBeNull();
    } finally {
      await second?.close();
      await first.close();
      await database.drop();
    }
  });

  it("is the site's to do for its SSO users", async () => {
    const site = await parley.newSite();
    const token = await parley.signIn(site.api_key, site.site_id, { id: 'kim', name: 'Kim' });
    const refused = await parley.request('DELETE', '/v1/me', { token });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe("This account is the site's: ask the site to delete it");
    expect((await parley.request('GET', '/v1/me', { token })).status).toBe(200);
  });
});
