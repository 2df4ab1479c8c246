import { expect } from 'vitest';
import { pageUrl, type TestParley } from '../../test/helper.ts';

/** A site with a page and its readers (signed in through the site's backend), each with what they do through the API. */
export async function readersSite(parley: TestParley, options: { moderationMode?: 'all' } = {}) {
  const made = await parley.newSite({ siteName: 'Tea Blog' });
  if (options.moderationMode) await parley.app.db.kysely.updateTable('sites').set({ moderation_mode: options.moderationMode }).where('id', '=', made.site_id).execute();
  const url = pageUrl();
  const reader = async (name: string, moderator = false) => {
    const token = await parley.signIn(made.api_key, made.site_id, { id: `${name.toLowerCase()}-${Math.random()}`, name, moderator });
    const me = await parley.request('GET', '/v1/me', { token });
    const id = me.body.user.id as string;
    return {
      token,
      id,
      mention: `@[${name}](${id})`,
      post: async (content: string, parentId?: string, threadUrl = url) => {
        const response = await parley.request('POST', '/v1/comments', { token, body: { site_id: made.site_id, thread_url: threadUrl, content, parent_id: parentId } });
        expect(response.status, JSON.stringify(response.body)).toBe(201);
        return response.body.id as string;
      },
      follow: async (threadUrl = url) => {
        const response = await parley.request('POST', '/v1/follows', { token, body: { site_id: made.site_id, thread_url: threadUrl } });
        expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
        return response.body as { id: string };
      },
      notifications: async (query = '') => {
        const response = await parley.request('GET', `/v1/notifications?site_id=${made.site_id}${query}`, { token });
        expect(response.status, JSON.stringify(response.body)).toBe(200);
        return response.body as { notifications: Array<Record<string, unknown>>; next_cursor: string | null; unread: number };
      },
    };
  };
  /** Waits until every queued fan-out is done (the worker runs after each commit). */
  const settled = () =>
    expect
      .poll(async () => (await parley.app.db.kysely.selectFrom('notification_jobs').select('id').where('state', '=', 'pending').execute()).length, { timeout: 10_000 })
      .toBe(0);
  return { ...made, url, reader, settled };
}
