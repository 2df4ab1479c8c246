import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { BANNED, BUSY_THREAD, HAM, SEEN_BEFORE, SPAM, SUSPECT, type CorpusItem } from './corpus.ts';

let parley: TestParley;
let site: { site_id: string; api_key: string };
const sessions = new Map<string, string>();

beforeAll(async () => {
  // Guests come from many addresses: through a proxy Parley trusts, as behind nginx.
  parley = await startParley({ TRUST_PROXY: '127.0.0.1' });
  site = await parley.newSite();
  const configured = await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { spam: { banned_words: BANNED, suspect_words: SUSPECT } } });
  expect(configured.status).toBe(200);
  // A regular reader, with a comment a moderator let through before.
  await post({ kind: 'history', content: 'My first comment here, glad to have found this blog.', by: { user: 'regular' } }, pageUrl());
  for (const item of SEEN_BEFORE) await post(item, pageUrl());
});
afterAll(() => parley.close());

async function tokenOf(user: string): Promise<string> {
  if (!sessions.has(user)) sessions.set(user, await parley.signIn(site.api_key, site.site_id, { id: user, name: user }));
  return sessions.get(user)!;
}

/** Posts an item as its author would: what happened to it (rejected, or the comment's id). */
async function post(item: CorpusItem, thread: string): Promise<{ rejected: true; detail: string } | { rejected: false; id: string }> {
  const body: Record<string, unknown> = { site_id: site.site_id, thread_url: thread, content: item.content, author_name: item.author_name };
  let headers: Record<string, string> = {};
  let token: string | undefined;
  if ('guest' in item.by) {
    headers = { 'x-forwarded-for': item.by.guest };
    const form = item.form ?? 'aged';
    if (form === 'aged' || form === 'honeypot') Object.assign(body, await parley.guestForm(site.site_id));
    if (form === 'honeypot') body.website = 'https://seo.example';
    if (form === 'fresh') body.form_token = (await parley.request('GET', `/v1/widget?site_id=${site.site_id}`, { headers })).body.form.token;
  } else {
    token = await tokenOf(item.by.user);
  }
  const response = await parley.request('POST', '/v1/comments', { token, headers, body });
  if (response.status === 400) return { rejected: true, detail: response.body.errors[0].message };
  expect(response.status).toBe(201);
  return { rejected: false, id: response.body.id };
}

/** Statuses and reasons as moderators see them, after every item is in (a later copy holds earlier ones). */
async function finalState(ids: string[]) {
  const rows = await parley.app.db.kysely.selectFrom('comments').select(['id', 'status', 'spam_reasons']).where('id', 'in', ids).execute();
  return new Map(rows.map((row) => [row.id, row]));
}

describe('the spam checks on a spam corpus and a ham corpus', () => {
  it('hold or refuse every spam item and hold no ham item; the rates are printed', async () => {
    const spam = [];
    for (const item of SPAM) spam.push({ item, result: await post(item, pageUrl()) });
    const ham = [];
    for (const item of HAM) ham.push({ item, result: await post(item, pageUrl()) });
    const busy = pageUrl();
    for (const item of BUSY_THREAD) ham.push({ item, result: await post(item, busy) });

    const states = await finalState([...spam, ...ham].flatMap(({ result }) => (result.rejected ? [] : [result.id])));
    const outcome = ({ result }: { result: Awaited<ReturnType<typeof post>> }) => (result.rejected ? 'rejected' : states.get(result.id)!.status);
    const spamOutcomes = spam.map((entry) => ({ kind: entry.item.kind, outcome: outcome(entry) }));
    const hamOutcomes = ham.map((entry) => ({ kind: entry.item.kind, outcome: outcome(entry) }));
    const caught = spamOutcomes.filter((entry) => entry.outcome === 'rejected' || entry.outcome === 'pending');
    const hamHeld = hamOutcomes.filter((entry) => entry.outcome !== 'published');
    const rejected = caught.filter((entry) => entry.outcome === 'rejected').length;
    console.log(
      `spam corpus: ${caught.length}/${spam.length} caught (${rejected} refused, ${caught.length - rejected} held); ` +
        `ham corpus: ${hamHeld.length}/${ham.length} held`,
    );
    expect(spamOutcomes.filter((entry) => entry.outcome === 'published')).toEqual([]);
    expect(hamHeld).toEqual([]);
  });

  it('says which check held each kind of spam', async () => {
    const reasonsOf = async (item: CorpusItem) => {
      const result = await post(item, pageUrl());
      if (result.rejected) return result.detail;
      const reasons = (await finalState([result.id])).get(result.id)!.spam_reasons;
      return (JSON.parse(reasons ?? '[]') as Array<{ check: string }>).map((reason) => reason.check);
    };
    expect(await reasonsOf({ kind: '', content: `Links ${'https://a.example/ '.repeat(4)}`, by: { user: 'farmer' } })).toEqual(['links']);
    expect(await reasonsOf({ kind: '', content: 'Ordinary words, sent by a script', by: { guest: '203.0.113.200' }, form: 'none' })).toEqual(['form']);
    expect(await reasonsOf({ kind: '', content: 'Words about forex', by: { user: 'trader' } })).toEqual(['words']);
    expect(await reasonsOf({ kind: '', content: 'Play at the c\u200Basino', by: { user: 'gambler' } })).toBe('holds a word this site does not accept ("casino"); please reword your comment');
  });
});
