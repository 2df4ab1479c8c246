import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { Formatting } from './html.ts';
import { mentionedIds } from './mentions.ts';
import { renderOffLoop } from './render-thread.ts';

/** A user a comment mentions, as its view lists them. */
export interface Mention {
  user_id: string;
  name: string;
}

/** A comment's text as its views show it: HTML made once, when it is written. */
export interface RenderedContent {
  content_html: string;
  mentions: Mention[];
}

/** At most this many mentions of one comment are looked up, linked and notified; the rest stay text. */
export const MAX_MENTIONS = 20;

/** The site users a source mentions, as they are named now: unknown ids, other sites' and erased users stay text. */
export async function mentionsOf(db: Kysely<Database>, siteId: string, source: string): Promise<Mention[]> {
  const ids = mentionedIds(source).slice(0, MAX_MENTIONS);
  if (ids.length === 0) return [];
  const users = await db
    .selectFrom('site_users')
    .select(['id', 'name'])
    .where('site_id', '=', siteId)
    .where('id', 'in', ids)
    .where('erased_at', 'is', null)
    .execute();
  const names = new Map(users.map((user) => [user.id, user.name]));
  return ids.filter((id) => names.has(id)).map((id) => ({ user_id: id, name: names.get(id)! }));
}

/** A comment's source rendered for its site, with the mentions it names. */
export async function renderForSite(db: Kysely<Database>, site: { id: string; formatting: Formatting }, source: string): Promise<RenderedContent> {
  const named = await mentionsOf(db, site.id, source);
  const html = await renderOffLoop(source, site.formatting, new Map(named.map((mention) => [mention.user_id, mention.name])));
  // A mention written inside code is shown as code: it names nobody.
  const mentions = named.filter((mention) => html.includes(`data-user-id="${mention.user_id}"`));
  return { content_html: html, mentions };
}
