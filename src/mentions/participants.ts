import type { Kysely } from 'kysely';
import { findThread } from '../comments/repository.ts';
import { threadKey } from '../comments/thread-url.ts';
import type { Database } from '../db/schema.ts';
import type { Mention } from '../formatting/render.ts';
import { siteOrNotFound } from '../sites/repository.ts';

/** The most participants a thread's list names: enough to pick from as one types a name after @. */
export const MAX_PARTICIPANTS = 50;

/** How far back in a thread its participants are looked for: a long thread's latest comments, not all of them. */
export const RECENT_COMMENTS = 2000;

/**
 * Whom a comment in a thread can mention, as the widget suggests them after `@`: the site users who
 * wrote the latest comments the public sees there (not deleted), most recent first, each once.
 * Erased users, guests, API keys and staff are not site users one can mention, and are not listed.
 * An unknown thread has none; an unknown site is 404.
 */
export async function threadParticipants(db: Kysely<Database>, siteId: string, rawThreadUrl: string): Promise<Mention[]> {
  const site = await siteOrNotFound(db, siteId);
  const thread = await findThread(db, site.id, threadKey(rawThreadUrl, 'querystring/thread_url').href);
  if (!thread) return [];
  // Read along the thread's index by time (comments_thread_time), newest first, so a long thread costs no more than a short one.
  const recent = db
    .selectFrom('comments')
    .select(['author_ref', 'created_at'])
    .where('thread_id', '=', thread.id)
    .where('status', '=', 'published')
    .where('moderation_status', 'is', null)
    .where('is_deleted', '=', 0)
    .orderBy('created_at', 'desc')
    .limit(RECENT_COMMENTS)
    .as('c');
  return db
    .selectFrom(recent)
    .innerJoin('site_users as u', 'u.id', 'c.author_ref')
    .select(['u.id as user_id', 'u.name'])
    .where('u.site_id', '=', site.id)
    .where('u.erased_at', 'is', null)
    .groupBy(['u.id', 'u.name'])
    .orderBy((eb) => eb.fn.max('c.created_at'), 'desc')
    .orderBy('u.id')
    .limit(MAX_PARTICIPANTS)
    .execute();
}
