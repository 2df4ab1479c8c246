import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectName, freshDatabaseUrl, pageUrl, startParley, twoInstances, type TestParley } from '../../../test/helper.ts';

type Site = { site_id: string; api_key: string };

const SPAM = [
  'Cheap pills online, best casino bonus, win money fast',
  'Win money fast with our casino bonus, cheap pills too',
  'Best casino online: bonus money, cheap pills, win fast',
  'Casino bonus! Win cheap money fast, pills online',
  'Cheap casino pills, fast money, online bonus win',
  'Online casino, cheap bonus pills, win money now fast',
  'Fast money: casino bonus online, cheap pills, win big',
  'Pills cheap, casino online, bonus money to win fast',
  'Win the casino bonus, fast cheap money, pills online',
  'Money fast, cheap pills, casino bonus online to win',
];
const HAM = [
  'Thanks for the article, the part about gardening in spring helped me',
  'I tried the recipe from this article and my family loved it',
  'The article explains the history of the bridge well, thank you',
  'My garden had the same problem in spring; the article helped',
  'Thank you for writing about the history of our town',
  'The recipe worked, though I used less sugar than the article says',
  'Great article about the bridge; I walk over it every day',
  'I did not know this history of the town, thanks for the article',
  'The spring garden tips in this article are useful, thank you',
  'Lovely article; the recipe is now a family favourite',
];
const SPAM_LIKE = 'Cheap casino pills: win bonus money fast online';
const HAM_LIKE = 'Thank you for the article about the garden and its history';

let users = 0;
/** A signed-in reader of their own (a new author each: no author's history holds their comment). */
async function post(parley: TestParley, site: Site, content: string, thread = pageUrl()) {
  const token = await parley.signIn(site.api_key, site.site_id, { id: `reader-${++users}`, name: `Reader ${users}` });
  const response = await parley.request('POST', '/v1/comments', { token, body: { site_id: site.site_id, thread_url: thread, content } });
  expect(response.status).toBe(201);
  return response.body as { id: string; status: string };
}

const moderate = (parley: TestParley, site: Site, id: string, action: string, reason?: string) =>
  parley.request('PATCH', `/v1/comments/${id}/moderate`, { token: site.api_key, body: { action, reason } });

const stats = async (parley: TestParley, site: Site) => (await parley.request('GET', `/api/sites/${site.site_id}/classifier`, { token: site.api_key })).body;

/** A site whose classifier needs 10 of each kind, pre-moderated while it learns (an approval then changes the comment). */
async function learningSite(parley: TestParley): Promise<Site> {
  const site = await parley.newSite();
  const spam = { thread_per_minute: 0, site_per_minute: 0, classifier: { min_examples: 10 } };
  expect((await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { spam, moderation_mode: 'all' } })).status).toBe(200);
  return site;
}

/** Ten comments marked spam and ten approved by the site's moderator; then comments are published unless held. */
async function teach(parley: TestParley, site: Site, spamAction = 'spam', spamReason?: string) {
  for (const text of SPAM) expect((await moderate(parley, site, (await post(parley, site, text)).id, spamAction, spamReason)).status).toBe(200);
  for (const text of HAM) expect((await moderate(parley, site, (await post(parley, site, text)).id, 'approve')).status).toBe(200);
  expect((await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { moderation_mode: 'none' } })).status).toBe(200);
}

describe('the spam classifier', () => {
  let parley: TestParley;
  beforeAll(async () => {
    parley = await startParley();
  });
  afterAll(async () => parley.close());

  it('holds a comment like ten marked spam, and publishes one like ten approved, saying how sure it is and what it resembles', async () => {
    const site = await learningSite(parley);
    expect(await stats(parley, site)).toMatchObject({ mode: 'hold_above', threshold: 0.9, spam_examples: 0, ham_examples: 0, active: false, holds: 0, agreement_rate: null });
    await teach(parley, site);
    expect(await stats(parley, site)).toMatchObject({ spam_examples: 10, ham_examples: 10, active: true });

    expect((await post(parley, site, HAM_LIKE)).status).toBe('published');
    const held = await post(parley, site, SPAM_LIKE);
    expect(held.status).toBe('pending');
    const queue = (await parley.request('GET', `/api/comments?site_id=${site.site_id}&status=pending`, { token: site.api_key })).body.comments;
    const reasons = queue.find((item: { id: string }) => item.id === held.id).spam_reasons;
    expect(reasons).toHaveLength(1);
    const [reason] = reasons;
    expect(reason).toMatchObject({ check: 'classifier', detail: expect.stringMatching(/^scored (0\.9\d*|1) .*classifier/) });
    expect(reason).toMatchObject({ code: 'classifier', values: { score: expect.any(Number) } });
    expect(reason.values.score).toBeGreaterThanOrEqual(0.9);
    expect(reason.values.similar).toHaveLength(3);
    for (const similar of reason.values.similar) {
      expect(similar).toMatchObject({ decision: 'spam', comment_id: expect.stringMatching(/^cmt_/) });
      expect(SPAM).toContain(similar.excerpt);
    }

    const log = await parley.request('GET', `/api/sites/${site.site_id}/moderation-log?action=classifier_hold`, { token: site.api_key });
    expect(log.body.entries).toEqual([expect.objectContaining({ action: 'classifier_hold', moderator: { id: null, kind: 'system', name: 'classifier' }, comment: expect.objectContaining({ id: held.id }) })]);
    expect(await stats(parley, site)).toMatchObject({ holds: 1, agreed: 0, disagreed: 0, agreement_rate: null });

    // The moderator agrees; a second hold they approve is a disagreement; a later change of mind counts no more.
    expect((await moderate(parley, site, held.id, 'spam')).status).toBe(200);
    const second = await post(parley, site, 'Win cheap casino money with pills, fast bonus online');
    expect(second.status).toBe('pending');
    expect((await moderate(parley, site, second.id, 'approve')).status).toBe(200);
    expect((await moderate(parley, site, second.id, 'spam')).status).toBe(200);
    expect(await stats(parley, site)).toMatchObject({ holds: 2, agreed: 1, disagreed: 1, agreement_rate: 0.5, spam_examples: 12, ham_examples: 10 });
    const agreement = await parley.request('GET', `/api/sites/${site.site_id}/moderation-log?action=classifier_disagreed`, { token: site.api_key });
    expect(agreement.body.entries).toEqual([expect.objectContaining({ moderator: expect.objectContaining({ kind: 'key' }), comment: expect.objectContaining({ id: second.id }) })]);
  });

  it('learns spam from a removal whose reason says spam, and from a shadow ban, but nothing from a removal for another reason', async () => {
    const site = await learningSite(parley);
    const offTopic = await post(parley, site, 'Off topic: my opinion about football');
    await moderate(parley, site, offTopic.id, 'remove', 'off topic');
    expect(await stats(parley, site)).toMatchObject({ spam_examples: 0, ham_examples: 0 });
    await moderate(parley, site, (await post(parley, site, SPAM[0])).id, 'remove', 'Spam');
    await moderate(parley, site, (await post(parley, site, SPAM[1])).id, 'shadow_ban');
    expect(await stats(parley, site)).toMatchObject({ spam_examples: 2, ham_examples: 0 });
  });

  it("forgets a decision that is undone, the classifier's own log entries notwithstanding", async () => {
    const site = await learningSite(parley);
    await teach(parley, site);
    const held = await post(parley, site, SPAM_LIKE);
    expect(held.status).toBe('pending');
    expect((await moderate(parley, site, held.id, 'spam')).status).toBe(200);
    expect(await stats(parley, site)).toMatchObject({ spam_examples: 11, agreed: 1 });
    const undo = await parley.request('POST', '/api/comments/moderate/undo', { token: site.api_key, body: { ids: [held.id] } });
    expect(undo.body.results).toEqual([expect.objectContaining({ id: held.id, ok: true, result: expect.objectContaining({ status: 'pending' }) })]);
    expect(await stats(parley, site)).toMatchObject({ spam_examples: 10, ham_examples: 10 });
  });

  it('re-labels a comment decided again instead of counting it twice', async () => {
    const site = await learningSite(parley);
    const comment = await post(parley, site, SPAM[0]);
    await moderate(parley, site, comment.id, 'spam');
    await moderate(parley, site, comment.id, 'approve');
    expect(await stats(parley, site)).toMatchObject({ spam_examples: 0, ham_examples: 1 });
    await moderate(parley, site, comment.id, 'spam');
    expect(await stats(parley, site)).toMatchObject({ spam_examples: 1, ham_examples: 0 });
  });

  it("cannot be taught by readers: their flags, votes and own deletions leave it as the moderators' decisions made it", async () => {
    const site = await learningSite(parley);
    await teach(parley, site);
    const before = await stats(parley, site);
    const thread = pageUrl();
    const honest = await post(parley, site, HAM_LIKE, thread);
    for (let i = 0; i < 15; i++) {
      const reader = await parley.signIn(site.api_key, site.site_id, { id: `poisoner-${i}`, name: `Poisoner ${i}` });
      expect((await parley.request('POST', `/v1/comments/${honest.id}/flag`, { token: reader, body: { reason: 'spam' } })).status).toBe(200);
      expect((await parley.request('POST', `/v1/comments/${honest.id}/vote`, { token: reader, body: { vote_type: 'down' } })).status).toBe(200);
      expect((await parley.request('PATCH', `/v1/comments/${honest.id}/moderate`, { token: reader, body: { action: 'spam' } })).status).toBe(403);
      const own = await parley.request('POST', '/v1/comments', { token: reader, body: { site_id: site.site_id, thread_url: thread, content: HAM[i % HAM.length] } });
      expect((await parley.request('DELETE', `/v1/comments/${own.body.id}`, { token: reader })).status).toBe(200);
    }
    expect(await stats(parley, site)).toEqual(before);
    expect((await post(parley, site, `${HAM_LIKE}, again`)).status).toBe('published');
  });
});

describe('the spam classifier across restarts and instances', () => {
  it('forgets nothing when the server restarts', async () => {
    const database = await freshDatabaseUrl();
    try {
      const first = await startParley({ DATABASE_URL: database.url });
      const site = await learningSite(first);
      await teach(first, site);
      await first.close();
      const second = await startParley({ DATABASE_URL: database.url });
      try {
        expect(await stats(second, site)).toMatchObject({ spam_examples: 10, ham_examples: 10, active: true });
        expect((await post(second, site, SPAM_LIKE)).status).toBe('pending');
        expect((await post(second, site, HAM_LIKE)).status).toBe('published');
      } finally {
        await second.close();
      }
    } finally {
      await database.drop();
    }
  });

  it.skipIf(dialectName !== 'postgres')('agrees across two instances: decisions on one, screening on the other, without Redis', async () => {
    await twoInstances(async (writer, reader) => {
      const site = await learningSite(writer);
      await teach(writer, site);
      const held = await post(reader, site, SPAM_LIKE);
      expect(held.status).toBe('pending');
      // The reader has the model in memory now; the writer's moderators change their minds about every spam.
      const marked = await writer.app.db.kysely.selectFrom('classifier_examples').select('comment_id').where('site_id', '=', site.site_id).where('label', '=', 'spam').execute();
      for (const { comment_id } of marked) expect((await moderate(writer, site, comment_id, 'approve')).status).toBe(200);
      expect(await stats(reader, site)).toMatchObject({ spam_examples: 0, active: false });
      expect((await post(reader, site, `${SPAM_LIKE} now`)).status).toBe('published');
    });
  });
});
