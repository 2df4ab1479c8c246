import { resolveCaller } from '../src/auth/caller.ts';
import { nowIso } from '../src/clock.ts';
import { createComment } from '../src/comments/service.ts';
import { connect, type Db } from '../src/db/connect.ts';
import { newId } from '../src/ids.ts';
import type { Seeded } from './seed.ts';

/** The thread of post-comment-followed: the write thread's page, with a query of its own. */
export function followedThread(seeded: Seeded): string {
  return `${seeded.threads.writes}?followed`;
}

/**
 * `count` readers follow a page, through the API of the Parley at `base` (a session each, made with
 * the site's key), 50 at a time.
 */
export async function followedBy(base: string, seeded: Seeded, threadUrl: string, count: number): Promise<void> {
  const post = async (path: string, token: string, body: unknown) => {
    const response = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { token: string };
  };
  for (let start = 0; start < count; start += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - start) }, async (_, i) => {
        const { token } = await post('/v1/sessions', seeded.apiKey, { site_id: seeded.siteId, user: { id: `follower-${start + i}`, name: `Follower ${start + i}` } });
        await post('/v1/follows', token, { site_id: seeded.siteId, thread_url: threadUrl });
      }),
    );
  }
}

/** `count` readers following the thread, written straight to the database (a sign-in and a follow each would take longer than the fan-out measured). */
async function insertFollowers(db: Db, siteId: string, threadId: string, count: number): Promise<void> {
  const now = nowIso();
  for (let start = 0; start < count; start += 500) {
    const users = Array.from({ length: Math.min(500, count - start) }, (_, i) => ({
      id: newId('usr'),
      site_id: siteId,
      external_id: `fanout-${start + i}`,
      name: `Fan-out reader ${start + i}`,
      avatar_url: null,
      first_comment_at: null,
      created_at: now,
      profile_issued_at: null,
      email: null,
    }));
    await db.kysely.insertInto('site_users').values(users).execute();
    await db.kysely.insertInto('follows').values(users.map((user) => ({ id: newId('fol'), site_id: siteId, user_id: user.id, thread_id: threadId, created_at: now }))).execute();
  }
}

/**
 * While no Parley runs: a thread followed by `count` readers, and a comment in it whose fan-out job
 * is queued, so the Parley then started only fans out. Returns the comment's id.
 */
export async function queueFanout(databaseUrl: string, seeded: Seeded, count: number): Promise<string> {
  const db = connect({ databaseUrl, databasePoolSize: 10, databaseStatementTimeoutMs: 0, databaseSsl: false });
  try {
    const key = await resolveCaller(db, seeded.apiKey, '127.0.0.1');
    const thread = `https://blog.example.com/posts/fanout-${seeded.siteId}`;
    const opening = await createComment(db, key, { thread_url: thread, site_id: seeded.siteId, content: 'The page has a thread once it has a comment.' });
    const { thread_id } = await db.kysely.selectFrom('comments').select('thread_id').where('id', '=', opening.id).executeTakeFirstOrThrow();
    await insertFollowers(db, seeded.siteId, thread_id, count);
    return (await createComment(db, key, { thread_url: thread, site_id: seeded.siteId, content: 'Every follower hears of this one.' })).id;
  } finally {
    await db.close();
  }
}

/** Waits until `count` notifications of the comment exist, or `seconds` passed; returns notifications per second since `since` (performance.now()). */
export async function fanoutRate(databaseUrl: string, commentId: string, count: number, since: number, seconds: number): Promise<{ rate: number; made: number }> {
  const db = connect({ databaseUrl, databasePoolSize: 1, databaseStatementTimeoutMs: 0, databaseSsl: false });
  try {
    const deadline = Date.now() + seconds * 1000;
    let made = 0;
    let at = since;
    while (made < count && Date.now() < deadline) {
      const row = await db.kysely.selectFrom('notifications').select((eb) => eb.fn.countAll<number | string>().as('made')).where('comment_id', '=', commentId).executeTakeFirstOrThrow();
      made = Number(row.made);
      at = performance.now();
      if (made < count) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { rate: made / ((at - since) / 1000), made };
  } finally {
    await db.close();
  }
}
