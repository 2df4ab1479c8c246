import { afterEach, expect, it } from 'vitest';
import { freshDatabaseUrl, startParley, type FreshDatabase } from '../../test/helper.ts';

let database: FreshDatabase | undefined;
afterEach(async () => {
  await database?.drop();
  database = undefined;
});

it('records when a key was last used in the database without a write per request: once a minute, and when the server stops', async () => {
  database = await freshDatabaseUrl();
  const first = await startParley({ DATABASE_URL: database.url });
  const site = await first.newSite();
  for (let i = 0; i < 5; i++) expect((await first.request('GET', '/v1/sites', { token: site.api_key })).status).toBe(200);
  const keyId = (await first.request('GET', '/api/keys', { token: site.api_key })).body.keys[0].id;
  const stored = () => first.app.db.kysely.selectFrom('api_keys').select('last_used_at').where('id', '=', keyId).executeTakeFirstOrThrow();
  // Five requests and a list: nothing written yet.
  expect((await stored()).last_used_at).toBeNull();
  await first.close();

  const second = await startParley({ DATABASE_URL: database.url });
  try {
    const row = await second.app.db.kysely.selectFrom('api_keys').select('last_used_at').where('id', '=', keyId).executeTakeFirstOrThrow();
    expect(row.last_used_at).toEqual(expect.any(String));
  } finally {
    await second.close();
  }
});
