import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { formSecretOf, issueFormToken } from './form-token.ts';
import { findSite } from '../sites/repository.ts';

let parley: TestParley;
let site: { site_id: string; api_key: string };
let other: { site_id: string; api_key: string };
beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
  other = await parley.newSite();
});
afterAll(() => parley.close());

const guestPost = (extra: object, target = site) =>
  parley.request('POST', '/v1/comments', { body: { site_id: target.site_id, thread_url: pageUrl(), content: 'Just a guest saying hello', ...extra } });
const reasonsOf = async (id: string) =>
  JSON.parse((await parley.app.db.kysely.selectFrom('comments').select('spam_reasons').where('id', '=', id).executeTakeFirstOrThrow()).spam_reasons ?? '[]');
const tokenIssued = async (target: { site_id: string }, at: number) =>
  issueFormToken(await formSecretOf(parley.app.db.kysely, (await findSite(parley.app.db.kysely, target.site_id))!), target.site_id, at);

describe('the form token', () => {
  it("holds a guest comment whose token is another site's, altered, from the future or older than a day", async () => {
    const minuteAgo = Date.now() - 60_000;
    const foreign = await tokenIssued(other, minuteAgo);
    const altered = (await tokenIssued(site, minuteAgo)).replace(/\.(\d+)\./, (_, at) => `.${Number(at) - 60_000}.`);
    const future = await tokenIssued(site, Date.now() + 3_600_000);
    const stale = await tokenIssued(site, Date.now() - 25 * 3_600_000);
    const details = [];
    for (const form_token of [foreign, altered, future, 'ft1.garbage', stale]) {
      const response = await guestPost({ form_token });
      expect(response.body.status).toBe('pending');
      details.push((await reasonsOf(response.body.id))[0].detail);
    }
    expect(details).toEqual([
      ...Array(4).fill('invalid form token (the widget sends one with each guest comment)'),
      'expired form token (the widget sends one with each guest comment)',
    ]);
  });

  it('holds a guest comment sent faster than a person writes, or with the hidden field filled in', async () => {
    const fresh = (await parley.request('GET', `/v1/widget?site_id=${site.site_id}`)).body.form.token;
    const fast = await guestPost({ form_token: fresh });
    expect(fast.body.status).toBe('pending');
    expect((await reasonsOf(fast.body.id))[0].detail).toMatch(/^sent 0\.\d s after the form was given \(minimum 2 s\)$/);
    const filled = await guestPost({ ...(await parley.guestForm(site.site_id)), website: 'https://spam.example' });
    expect(filled.body.status).toBe('pending');
  });

  it('is never asked of API keys or sessions: a site backend posting for its users is not held for lacking one', async () => {
    const integration = (await parley.request('POST', '/api/keys', { token: site.api_key, body: { role: 'integration', name: 'backend' } })).body.api_key;
    const session = await parley.signIn(site.api_key, site.site_id, { id: 'u1', name: 'User' });
    for (const token of [integration, session]) {
      const response = await parley.request('POST', '/v1/comments', { token, body: { site_id: site.site_id, thread_url: pageUrl(), content: 'Posted without a form token' } });
      expect(response.body.status).toBe('published');
    }
  });

  it('is given to guests only, and shows nothing of the secret it is signed with', async () => {
    const session = await parley.signIn(site.api_key, site.site_id, { id: 'u2', name: 'User' });
    expect((await parley.request('GET', `/v1/widget?site_id=${site.site_id}`, { token: session })).body.form).toBeNull();
    const secret = (await findSite(parley.app.db.kysely, site.site_id))!.formSecret!;
    const shown = JSON.stringify([
      (await parley.request('GET', `/v1/widget?site_id=${site.site_id}`)).body,
      (await parley.request('GET', `/api/sites/${site.site_id}`, { token: site.api_key })).body,
    ]);
    expect(shown).not.toContain(secret);
  });
});

describe('who the checks skip', () => {
  it("passes a moderator's comment whatever it holds", async () => {
    await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { spam: { banned_words: ['casino'] } } });
    const response = await parley.request('POST', '/v1/comments', { token: site.api_key, body: { site_id: site.site_id, thread_url: pageUrl(), content: 'casino https://a.example/ https://b.example/' } });
    expect(response.body.status).toBe('published');
  });
});
