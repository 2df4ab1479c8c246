import type { Selectable } from 'kysely';
import { nowIso } from '../src/clock.ts';
import type { Db } from '../src/db/connect.ts';
import type { NotificationTable } from '../src/db/schema.ts';
import { newId } from '../src/ids.ts';
import { queueNotificationMails } from '../src/mail/notification-mails.ts';
import type { SiteReader } from '../src/notifications/unread.ts';
import type { TestParley } from './helper.ts';

type Kind = 'reply' | 'mention' | 'followed_thread' | 'moderation';

/**
 * A notification about a comment for a reader, made as the fan-out worker makes it: the row, and
 * its mails queued in the same transaction. Returns the row as stored.
 */
export async function notify(db: Db, row: SiteReader & { kind: Kind; commentId: string; data?: Record<string, unknown> }): Promise<Selectable<NotificationTable>> {
  const comment = await db.kysely.selectFrom('comments').select('thread_id').where('id', '=', row.commentId).executeTakeFirstOrThrow();
  const id = newId('ntf');
  const made = {
    id,
    site_id: row.siteId,
    user_id: row.userId,
    kind: row.kind,
    comment_id: row.commentId,
    thread_id: comment.thread_id,
    cause: `${row.kind}:${id}`,
    data: JSON.stringify(row.data ?? {}),
    created_at: nowIso(),
    read_at: null,
    mailed_at: null,
  };
  await db.kysely.transaction().execute(async (trx) => {
    await trx.insertInto('notifications').values(made).execute();
    await queueNotificationMails(trx, db.mail, [made]);
  });
  return db.kysely.selectFrom('notifications').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/**
 * A reply notification for a reader, then (unless `announce` is false) announced after the commit
 * as the worker announces them, on this instance's change feed. Returns its id.
 */
export async function notifyReader(parley: TestParley, reader: SiteReader, commentId: string, { announce = true } = {}): Promise<string> {
  const made = await notify(parley.app.db, { ...reader, kind: 'reply', commentId });
  if (announce) parley.app.db.changes.readersNotified(reader.siteId, [reader.userId]);
  return made.id;
}

/** Marks all of a reader's notifications read, and announces it, as POST /v1/notifications/read does. */
export async function readAll(parley: TestParley, reader: SiteReader): Promise<void> {
  await parley.app.db.kysely.updateTable('notifications').set({ read_at: nowIso() }).where('site_id', '=', reader.siteId).where('user_id', '=', reader.userId).where('read_at', 'is', null).execute();
  parley.app.db.changes.readersNotified(reader.siteId, [reader.userId]);
}
