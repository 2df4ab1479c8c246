import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { ERASED_NAME } from '../commenters/erase.ts';
import { signedInReader } from '../readers/me/readers.fixture.ts';

let parley: TestParley;
beforeAll(async () => {
  // Readers who delete their account are erased at once.
  parley = await startParley({ PARLEY_ERASE_GRACE: '0' });
});
afterAll(() => parley.close());

/** A site with Bob (the site's user, through its backend) and readers who signed in by email codes. */
async function site() {
  const made = await parley.newSite({ siteName: 'Tea Blog' });
  const url = pageUrl();
  const bob = await parley.signIn(made.api_key, made.site_id, { id: 'bob', name: 'Bob' });
  const reader = async (name: string) => {
    const session = await signedInReader(parley, made.site_id, { email: `${name.toLowerCase()}-${Math.random()}@example.com`, name });
    return { token: session.token, id: session.user.id, mention: `@[${name}](${session.user.id})` };
  };
  const post = async (token: string | undefined, body: Record<string, unknown>, threadUrl = url) => {
    const form = token ? {} : await parley.guestForm(made.site_id);
    const response = await parley.request('POST', '/v1/comments', { token, body: { site_id: made.site_id, thread_url: threadUrl, ...form, ...body } });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body as { id: string };
  };
  const participants = async (threadUrl = url) => {
    const response = await parley.request('GET', `/v1/comments/participants?site_id=${made.site_id}&thread_url=${encodeURIComponent(threadUrl)}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.participants as Array<{ user_id: string; name: string }>;
  };
  return { ...made, url, bob, reader, post, participants };
}

describe('the participants of a thread', () => {
  it("lists the site users whose comments the public sees there, most recent first, each once, to anyone", async () => {
    const { site_id, api_key, bob, reader, post, participants } = await site();
    const [ann, carl, dee, eve, cy] = [await reader('Ann'), await reader('Carl'), await reader('Dee'), await reader('Eve'), await reader('Cy')];
    const mo = await parley.signIn(api_key, site_id, { id: 'mo', name: 'Mo', moderator: true });
    await post(bob, { content: 'First!' });
    const anns = await post(ann.token, { content: 'Hello' });
    await post(undefined, { content: 'A guest', author_name: 'Gus' });
    await post(api_key, { content: 'From the backend' });
    const carls = await post(carl.token, { content: 'Shadows' });
    expect((await parley.request('PATCH', `/v1/comments/${carls.id}/moderate`, { token: mo, body: { action: 'shadow_ban' } })).status).toBe(200);
    const dees = await post(dee.token, { content: 'Deleted soon' });
    expect((await parley.request('DELETE', `/v1/comments/${dees.id}`, { token: dee.token })).status).toBe(200);
    await post(eve.token, { content: 'Erased soon' });
    expect((await parley.request('DELETE', '/v1/me', { token: eve.token })).status).toBe(200);
    await post(cy.token, { content: 'Elsewhere' }, pageUrl());
    await post(bob, { content: 'Welcome', parent_id: anns.id });

    expect(await participants()).toEqual([
      { user_id: expect.stringMatching(/^usr_/), name: 'Bob' },
      { user_id: ann.id, name: 'Ann' },
    ]);
    expect(await participants(pageUrl())).toEqual([]);
  });
});

describe('erasing a mentioned user', () => {
  it('takes their name out of the comments that mention them, in the source, the HTML and the mentions, and out of cached lists', async () => {
    const { site_id, api_key, url, bob, reader, post } = await site();
    const [ann, cy] = [await reader('Ann'), await reader('Cy')];
    const comment = await post(bob, { content: `Thanks ${ann.mention} and ${cy.mention}! Type \`${ann.mention}\` to mention her.` });
    await parley.app.db.kysely
      .insertInto('comment_revisions')
      .values({ id: `rev_${comment.id}`, comment_id: comment.id, site_id, content: `Thanks ${ann.mention}`, content_html: `<p>Thanks <span class="parley-mention" data-user-id="${ann.id}">@Ann</span></p>`, written_at: new Date().toISOString(), replaced_at: new Date().toISOString(), replaced_by: null })
      .execute();
    const shown = async () => {
      const list = await parley.request('GET', `/v1/comments?site_id=${site_id}&thread_url=${encodeURIComponent(url)}`);
      return list.body.comments.find((c: { id: string }) => c.id === comment.id) as { content: string; content_html: string; mentions: unknown[] };
    };
    const before = await shown();
    expect(before.content_html).toContain(`<span class="parley-mention" data-user-id="${ann.id}">@Ann</span>`);
    expect(before.mentions).toEqual([{ user_id: ann.id, name: 'Ann' }, { user_id: cy.id, name: 'Cy' }]);

    expect((await parley.request('DELETE', `/api/sites/${site_id}/users/${ann.id}`, { token: api_key })).status).toBe(204);
    const after = await shown();
    expect(after.content).toBe(`Thanks @[${ERASED_NAME}](${ann.id}) and ${cy.mention}! Type \`@[${ERASED_NAME}](${ann.id})\` to mention her.`);
    expect(after.content_html).not.toContain('Ann');
    expect(after.content_html).not.toContain(`data-user-id="${ann.id}"`);
    expect(after.content_html).toContain(`Thanks @${ERASED_NAME} and <span class="parley-mention" data-user-id="${cy.id}">@Cy</span>`);
    expect(after.mentions).toEqual([{ user_id: cy.id, name: 'Cy' }]);
    const revision = await parley.app.db.kysely.selectFrom('comment_revisions').select(['content', 'content_html']).where('comment_id', '=', comment.id).executeTakeFirstOrThrow();
    expect(revision.content).not.toContain('Ann');
    expect(revision.content_html).not.toContain('Ann');

    // A reader who deletes their own account goes the same way.
    expect((await parley.request('DELETE', '/v1/me', { token: cy.token })).status).toBe(200);
    const last = await shown();
    expect(last.content_html).not.toContain('Cy');
    expect(last.content_html).toContain(`@${ERASED_NAME} and @${ERASED_NAME}!`);
    expect(last.mentions).toEqual([]);
  });
});
