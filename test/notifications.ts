import { nowIso } from '../src/clock.ts';
import { newId } from '../src/ids.ts';
import type { SiteReader } from '../src/notifications/unread.ts';
import type { TestParley } from './helper.ts';

/**
 * A notification about a comment for a reader, inserted as the notification worker inserts them,
 * then (unless `announce` is false) announced after the "commit" as the worker announces them, on
 * this instance's change feed. Returns its id.
 */
export async function notifyReader(parley: TestParley, reader: SiteReader, commentId: string, { announce = true } = {}): Promise<string> {
  const db = parley.app.db.kysely;
  const { thread_id } = await db.selectFrom('comments').select('thread_id').where('id', '=', commentId).executeTakeFirstOrThrow();
  const id = newId('ntf');
  await db
    .insertInto('notifications')
    .values({ id, site_id: reader.siteId, user_id: reader.userId, kind: 'reply', comment_id: commentId, thread_id, cause: `reply:${id}`, created_at: nowIso(), read_at: null, mailed_at: null })
    .execute();
  if (announce) parley.app.db.changes.readersNotified(reader.siteId, [reader.userId]);
  return id;
}

/** Marks all of a reader's notifications read, and announces it, as POST /v1/notifications/read does. */
export async function readAll(parley: TestParley, reader: SiteReader): Promise<void> {
  await parley.app.db.kysely.updateTable('notifications').set({ read_at: nowIso() }).where('site_id', '=', reader.siteId).where('user_id', '=', reader.userId).where('read_at', 'is', null).execute();
  parley.app.db.changes.readersNotified(reader.siteId, [reader.userId]);
}
