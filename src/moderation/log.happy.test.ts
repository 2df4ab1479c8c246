import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { addStaff, signInStaff, type StaffSignIn } from '../../test/staff.ts';

let parley: TestParley;
let account: { account_id: string; site_id: string; api_key: string };
let elsewhere: { account_id: string; site_id: string; api_key: string };
let second: string;
let owner: StaffSignIn;
let onlyFirst: StaffSignIn;

beforeAll(async () => {
  parley = await startParley();
  account = await parley.newSite({ siteName: 'The Gazette' });
  elsewhere = await parley.newSite({ siteName: 'Another account' });
  second = (await parley.request('POST', '/api/sites', { token: account.api_key, body: { name: 'The Almanac' } })).body.id;
  owner = await signInStaff(parley, (await addStaff(parley, account.account_id, 'owner')).email);
  onlyFirst = await signInStaff(parley, (await addStaff(parley, account.account_id, 'moderator', { siteIds: [account.site_id] })).email);
});
afterAll(() => parley.close());

/** A comment on the site, removed by the key: one log entry. */
async function removed(site: { site_id: string; api_key: string }, content: string): Promise<string> {
  const token = await parley.signIn(site.api_key, site.site_id, { id: 'writer', name: 'Writer' });
  const id = (await parley.request('POST', '/v1/comments', { token, body: { site_id: site.site_id, thread_url: pageUrl(), content } })).body.id;
  expect((await parley.request('POST', '/api/comments/moderate', { token: site.api_key, body: { ids: [id], action: 'remove' } })).status).toBe(200);
  return id;
}
const logOf = async (who: StaffSignIn, query: string) => parley.request('GET', `/api/moderation-log?${query}`, { headers: who.headers });
const commentIds = (body: { entries: Array<{ comment: { id: string } }> }) => body.entries.map((entry) => entry.comment.id);

describe('the moderation log across sites', () => {
  let first: string;
  let onSecond: string;
  let between: string;
  beforeAll(async () => {
    first = await removed(account, 'on the gazette');
    await new Promise((resolve) => setTimeout(resolve, 20));
    between = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 20));
    onSecond = await removed({ site_id: second, api_key: account.api_key }, 'on the almanac');
    await removed(elsewhere, 'in another account');
  });

  it("lists every site the caller moderates, newest first, each entry naming its site, and nothing of another account's", async () => {
    const answer = await logOf(owner, '');
    expect(answer.status).toBe(200);
    expect(commentIds(answer.body)).toEqual([onSecond, first]);
    expect(answer.body.entries.map((entry: { site_id: string }) => entry.site_id)).toEqual([second, account.site_id]);
  });

  it('keeps to the sites a moderator was given', async () => {
    expect(commentIds((await logOf(onlyFirst, '')).body)).toEqual([first]);
    expect((await logOf(onlyFirst, `site_id=${second}`)).status).toBe(404);
    expect((await logOf(owner, `site_id=${elsewhere.site_id}`)).status).toBe(404);
  });

  it('filters by site, moderator, action and time: since is inclusive, until exclusive', async () => {
    expect(commentIds((await logOf(owner, `site_id=${second}`)).body)).toEqual([onSecond]);
    expect(commentIds((await logOf(owner, `since=${between}`)).body)).toEqual([onSecond]);
    expect(commentIds((await logOf(owner, `until=${between}`)).body)).toEqual([first]);
    expect(commentIds((await logOf(owner, `since=${between}&until=${between}`)).body)).toEqual([]);
    expect(commentIds((await logOf(owner, 'action=approve')).body)).toEqual([]);
    const keyId = (await logOf(owner, '')).body.entries[0].moderator.id;
    expect(commentIds((await logOf(owner, `moderator=${keyId}&action=remove`)).body)).toEqual([onSecond, first]);
    expect(commentIds((await logOf(owner, `moderator=${owner.body.staff.id}`)).body)).toEqual([]);
  });

  it('takes since and until on one site too', async () => {
    const site = await parley.request('GET', `/api/sites/${account.site_id}/moderation-log?since=${between}`, { token: account.api_key });
    expect(site.status).toBe(200);
    expect(site.body.entries).toEqual([]);
    const before = await parley.request('GET', `/api/sites/${account.site_id}/moderation-log?until=${between}`, { token: account.api_key });
    expect(commentIds(before.body)).toEqual([first]);
  });

  it('pages with the cursor through the filtered entries', async () => {
    const page = await logOf(owner, 'limit=1&action=remove');
    expect(commentIds(page.body)).toEqual([onSecond]);
    const next = await logOf(owner, `limit=1&action=remove&cursor=${encodeURIComponent(page.body.next_cursor)}`);
    expect(commentIds(next.body)).toEqual([first]);
    expect(next.body.next_cursor).toBeNull();
  });

  it('refuses a time that is not one, as a problem naming the field', async () => {
    const answer = await logOf(owner, 'since=yesterday');
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('since');
  });
});
