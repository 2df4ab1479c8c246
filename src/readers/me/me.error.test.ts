import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type TestParley } from '../../../test/helper.ts';
import { signedInReader } from './readers.fixture.ts';

let parley: TestParley;
let site: { account_id: string; site_id: string; api_key: string };
let reader: { token: string; user: { id: string } };
beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
  reader = await signedInReader(parley, site.site_id, { email: 'ola@example.com', name: 'Ola' });
});
afterAll(() => parley.close());

function expectProblem(response: { status: number; body: { code: string; detail: string } }, status: number, detail?: string | RegExp) {
  expect(response.status).toBe(status);
  if (detail !== undefined) expect(response.body.detail).toMatch(detail);
}

describe("a reader's own page refuses", () => {
  it.each([
    ['an empty name', '   ', /must not be empty/],
    ['a name with a right-to-left override', 'evil\u202Eevil', /pattern/],
    ['a name of 101 characters', 'x'.repeat(101), /at most 100 characters/],
    ['a name with a control character', 'Ola\u0007', /control characters/],
  ])('%s', async (_, name, detail) => {
    expectProblem(await parley.request('PATCH', '/v1/me', { token: reader.token, body: { name } }), 400, detail);
    expect((await parley.request('GET', '/v1/me', { token: reader.token })).body.user.name).toBe('Ola');
  });

  it('a body without a name, or not JSON', async () => {
    expectProblem(await parley.request('PATCH', '/v1/me', { token: reader.token, body: {} }), 400);
    expectProblem(await parley.request('PATCH', '/v1/me', { token: reader.token, raw: '{"name":', headers: { 'content-type': 'application/json' } }), 400);
  });

  it.each([
    ['a cursor of no list', '/v1/me/comments?cursor=bm90LWEtY3Vyc29y'],
    ['a cursor of another list', `/v1/me/comments?cursor=${Buffer.from(JSON.stringify(['newest', 'x', 'y'])).toString('base64url')}`],
    ['a cursor with a NUL', `/v1/me/comments?cursor=${Buffer.from(JSON.stringify(['mine-newest', '\u0000', 'y'])).toString('base64url')}`],
    ['a page of 51', '/v1/me/comments?limit=51'],
    ['a page of 0', '/v1/me/comments?limit=0'],
  ])('%s', async (_, path) => {
    expectProblem(await parley.request('GET', path, { token: reader.token }), 400);
  });

  it("another reader's way of signing in, as unknown", async () => {
    const other = await signedInReader(parley, site.site_id, { email: 'pia@example.com', name: 'Pia' });
    const [theirs] = (await parley.request('GET', '/v1/me', { token: other.token })).body.sign_in_methods;
    expectProblem(await parley.request('DELETE', `/v1/me/sign-in-methods/${theirs.id}`, { token: reader.token }), 404, `No sign-in method ${theirs.id} of yours`);
    expect((await parley.request('GET', '/v1/me', { token: other.token })).body.sign_in_methods).toEqual([theirs]);
  });

  it("a site's SSO user's name and ways of signing in, which the site manages", async () => {
    const token = await parley.signIn(site.api_key, site.site_id, { id: 'quinn', name: 'Quinn' });
    const managed = "This account is the site's: its name and sign-in are managed by the site";
    expectProblem(await parley.request('PATCH', '/v1/me', { token, body: { name: 'Q' } }), 403, managed);
    expectProblem(await parley.request('DELETE', '/v1/me/sign-in-methods/rid_x', { token }), 403, managed);
    expect((await parley.request('GET', '/v1/me', { token })).body.user.name).toBe('Quinn');
  });

  it('an API key, and no credential', async () => {
    for (const [method, path] of [['GET', '/v1/me'], ['GET', '/v1/me/export'], ['DELETE', '/v1/me'], ['POST', '/v1/me/guest-comments/claim']]) {
      expectProblem(await parley.request(method, path, { token: site.api_key }), 403, "A reader's own page needs the reader's session, not an API key");
      expectProblem(await parley.request(method, path), 401);
    }
  });
});
