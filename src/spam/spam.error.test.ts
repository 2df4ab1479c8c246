import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
let site: { site_id: string; api_key: string };
beforeAll(async () => {
  parley = await startParley();
  site = await parley.newSite();
});
afterAll(() => parley.close());

const patch = (spam: unknown) => parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { spam } });

describe('spam settings that break the rules', () => {
  it('are refused with the path of what is wrong, and change nothing', async () => {
    const cases: Array<[unknown, string]> = [
      [{ max_links: -1 }, '/body/spam/max_links'],
      [{ proof_of_work: 'sometimes' }, '/body/spam/proof_of_work'],
      [{ min_submit_seconds: 1.5 }, '/body/spam/min_submit_seconds'],
      [{ banned_words: ['x'.repeat(51)] }, '/body/spam/banned_words/0'],
      [{ suspect_words: ['ok', '!!!'] }, 'body/spam/suspect_words/1'],
      [{ banned_words: Array(501).fill('word') }, '/body/spam/banned_words'],
    ];
    for (const [spam, path] of cases) {
      const response = await patch(spam);
      expect(response.status, JSON.stringify(spam)).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body.code).toBe('validation_failed');
      expect(response.body.errors.map((e: { path: string }) => e.path.replace(/^\//, ''))).toContain(path.replace(/^\//, ''));
    }
    expect((await parley.request('GET', `/api/sites/${site.site_id}`, { token: site.api_key })).body.spam).toMatchObject({ max_links: 3, banned_words: [], suspect_words: [] });
  });
});

describe('a comment the checks refuse', () => {
  it('gets a problem the writer can act on: which word, or what proof is missing', async () => {
    await patch({ banned_words: ['casino'], proof_of_work: 'always' });
    const alice = await parley.signIn(site.api_key, site.site_id, { id: 'alice', name: 'Alice' });
    const banned = await parley.request('POST', '/v1/comments', { token: alice, body: { site_id: site.site_id, thread_url: pageUrl(), content: 'Best CASINO in town' } });
    expect(banned.status).toBe(400);
    expect(banned.body).toMatchObject({
      code: 'validation_failed',
      errors: [{ path: 'body/content', message: 'holds a word this site does not accept ("casino"); please reword your comment' }],
    });
    const unproven = await parley.request('POST', '/v1/comments', {
      body: { site_id: site.site_id, thread_url: pageUrl(), content: 'A guest without the work', ...(await parley.guestForm(site.site_id)), altcha: 'bm90IGEgcHJvb2Y=' },
    });
    expect(unproven.status).toBe(400);
    expect(unproven.body.errors).toEqual([{ path: 'body/altcha', message: expect.stringContaining('needs a proof of work (ALTCHA)') }]);
    // Neither left a signal for the checks of later comments.
    await parley.app.db.spamSignals.flush();
    expect(parley.app.db.spamSignals.log.size).toBe(0);
    expect(await parley.app.db.kysely.selectFrom('spam_signals').select('comment_id').execute()).toEqual([]);
  });
});
