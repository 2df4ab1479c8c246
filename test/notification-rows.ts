import type { Selectable } from 'kysely';
import { nowIso } from '../src/clock.ts';
import type { Db } from '../src/db/connect.ts';
import type { NotificationTable } from '../src/db/schema.ts';
import { newId } from '../src/ids.ts';
import { queueNotificationMails } from '../src/mail/notification-mails.ts';

/** A notification as the fan-out worker makes it: the row, and its mails queued in the same transaction. */
export async function notify(
  db: Db,
  row: { siteId: string; userId: string; kind: 'reply' | 'mention' | 'followed_thread' | 'moderation'; commentId: string; data?: Record<string, unknown> },
): Promise<Selectable<NotificationTable>> {
  const comment = await db.kysely.selectFrom('comments').select('thread_id').where('id', '=', row.commentId).executeTakeFirstOrThrow();
  const made = {
    id: newId('ntf'),
    site_id: row.siteId,
    user_id: row.userId,
    kind: row.kind,
    comment_id: row.commentId,
    thread_id: comment.thread_id,
    cause: `${row.kind}:${row.commentId}`,
    data: JSON.stringify(row.data ?? {}),
    created_at: nowIso(),
    read_at: null,
    mailed_at: null,
  };
  await db.kysely.transaction().execute(async (trx) => {
    await trx.insertInto('notifications').values(made).execute();
    await queueNotificationMails(trx, db.mail, [made]);
  });
  return db.kysely.selectFrom('notifications').selectAll().where('id', '=', made.id).executeTakeFirstOrThrow();
}
