import type { LogEvent } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectName, pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { resolveCaller, type Caller } from '../auth/caller.ts';
import { connect, type Db } from '../db/connect.ts';
import { setVote, toggleReaction } from './service.ts';

// Each statement is a round trip to PostgreSQL that the request waits for, and wakes a server process.
describe.skipIf(dialectName !== 'postgres')("a reader's or an API key's vote and reaction on PostgreSQL", () => {
  let parley: TestParley;
  let db: Db;
  let reader: Caller;
  let moderator: Caller;
  let comment: string;
  let site: { site_id: string; api_key: string };
  const statements: string[] = [];

  beforeAll(async () => {
    parley = await startParley();
    site = await parley.newSite();
    const posted = await parley.request('POST', '/v1/comments', { token: site.api_key, body: { thread_url: pageUrl(), site_id: site.site_id, content: 'vote on me' } });
    comment = posted.body.id;
    db = connect(parley.config, (event: LogEvent) => {
      if (event.level === 'query') statements.push(event.query.sql);
    });
    reader = await resolveCaller(db, await parley.signIn(site.api_key, site.site_id, { id: 'reader', name: 'Reader' }), '127.0.0.1');
    moderator = await resolveCaller(db, await parley.signIn(site.api_key, site.site_id, { id: 'mod', name: 'Mod', moderator: true }), '127.0.0.1');
  });
  afterAll(async () => {
    await db.close();
    await parley.close();
  });

  /** What `act` answered, and how many statements it sent. */
  async function counted<T>(act: () => Promise<T>): Promise<[T, number]> {
    statements.length = 0;
    const answer = await act();
    return [answer, statements.length];
  }

  it('sends one statement for each vote, switch, removal and repeat', async () => {
    expect(await counted(() => setVote(db, reader, comment, 'up'))).toEqual([{ upvotes: 1, downvotes: 0, user_vote: 'up', liked_by_site_owner: false }, 1]);
    expect(await counted(() => setVote(db, reader, comment, 'up'))).toEqual([{ upvotes: 1, downvotes: 0, user_vote: 'up', liked_by_site_owner: false }, 1]);
    expect(await counted(() => setVote(db, reader, comment, 'down'))).toEqual([{ upvotes: 0, downvotes: 1, user_vote: 'down', liked_by_site_owner: false }, 1]);
    expect(await counted(() => setVote(db, moderator, comment, 'up'))).toEqual([{ upvotes: 1, downvotes: 1, user_vote: 'up', liked_by_site_owner: true }, 1]);
    expect(await counted(() => setVote(db, reader, comment, null))).toEqual([{ upvotes: 1, downvotes: 0, user_vote: null, liked_by_site_owner: true }, 1]);
  });

  it('sends one statement for each reaction, switch and removal', async () => {
    expect(await counted(() => toggleReaction(db, reader, comment, 'funny'))).toEqual([{ reaction_counts: { funny: 1 }, user_reaction: 'funny' }, 1]);
    expect(await counted(() => toggleReaction(db, reader, comment, 'insightful'))).toEqual([{ reaction_counts: { insightful: 1 }, user_reaction: 'insightful' }, 1]);
    expect(await counted(() => toggleReaction(db, reader, comment, 'insightful'))).toEqual([{ reaction_counts: {}, user_reaction: null }, 1]);
  });

  it("sends one statement for an API key's vote and reaction, marked as the key's, a moderator key's as the site owner's", async () => {
    const integration = await resolveCaller(db, (await parley.request('POST', '/api/keys', { token: site.api_key, body: { role: 'integration', name: 'backend' } })).body.api_key, '127.0.0.1');
    const moderatorKey = await resolveCaller(db, (await parley.request('POST', '/api/keys', { token: site.api_key, body: { role: 'moderator', name: 'bot' } })).body.api_key, '127.0.0.1');
    const [voted, sent] = await counted(() => setVote(db, integration, comment, 'down'));
    expect(sent).toBe(1);
    expect(voted).toMatchObject({ user_vote: 'down', liked_by_site_owner: true });
    expect((await counted(() => toggleReaction(db, integration, comment, 'funny')))[1]).toBe(1);
    expect((await counted(() => setVote(db, moderatorKey, comment, 'up')))[1]).toBe(1);
    const votes = await db.kysely.selectFrom('votes').select(['voter_ref', 'value', 'by_moderator']).where('comment_id', '=', comment).where('voter_ref', 'like', 'key_%').orderBy('value').execute();
    expect(votes.map(({ value, by_moderator }) => ({ value, by_moderator }))).toEqual([{ value: -1, by_moderator: 0 }, { value: 1, by_moderator: 1 }]);
    await setVote(db, integration, comment, null);
    await setVote(db, moderatorKey, comment, null);
    await toggleReaction(db, integration, comment, 'funny');
  });

  it("refuses a key of another account, or one limited to the account's other sites, as not found, and writes nothing", async () => {
    const other = await parley.newSite();
    const stranger = await resolveCaller(db, other.api_key, '127.0.0.1');
    const second = (await parley.request('POST', '/api/sites', { token: site.api_key, body: { name: 'Second' } })).body.id;
    const elsewhere = (await parley.request('POST', '/api/keys', { token: site.api_key, body: { role: 'moderator', name: 'second only', site_ids: [second] } })).body.api_key;
    const limited = await resolveCaller(db, elsewhere, '127.0.0.1');
    for (const caller of [stranger, limited]) {
      await expect(setVote(db, caller, comment, 'up')).rejects.toMatchObject({ status: 404 });
      await expect(toggleReaction(db, caller, comment, 'funny')).rejects.toMatchObject({ status: 404 });
    }
    expect(await db.kysely.selectFrom('votes').select('voter_ref').where('comment_id', '=', comment).where('voter_ref', 'like', 'key_%').execute()).toEqual([]);
    expect(await db.kysely.selectFrom('reactions').select('reactor_ref').where('comment_id', '=', comment).where('reactor_ref', 'like', 'key_%').execute()).toEqual([]);
  });

  it('writes nothing where its checks refuse, and says why as before', async () => {
    await expect(toggleReaction(db, reader, comment, 'unknown')).rejects.toMatchObject({ status: 400 });
    await expect(setVote(db, reader, 'cmt_none', 'up')).rejects.toMatchObject({ status: 404 });
    await parley.request('DELETE', `/v1/comments/${comment}`, { token: site.api_key });
    await expect(toggleReaction(db, reader, comment, 'funny')).rejects.toMatchObject({ status: 409 });
    await expect(setVote(db, reader, comment, 'up')).rejects.toMatchObject({ status: 409 });
    expect(await db.kysely.selectFrom('reactions').select('type').where('comment_id', '=', comment).execute()).toEqual([]);
    expect(await db.kysely.selectFrom('votes').select('value').where('comment_id', '=', comment).execute()).toEqual([{ value: 1 }]);
  });
});
