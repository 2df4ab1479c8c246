import { sql, type Transaction } from 'kysely';
import type { Db } from '../db/connect.ts';
import { lockRow } from '../db/dialect.ts';
import type { Database } from '../db/schema.ts';
import { newId } from '../ids.ts';

/**
 * Keeps the text an edit is about to replace, in the edit's transaction, for the site's moderators
 * (GET /api/comments/:id/revisions). The row is locked first (PostgreSQL), so of two edits at once
 * each keeps the text the other left. The replaced text was written when the edit before it
 * replaced its own, or, for the first, when the comment was posted (a comment edited before earlier
 * versions were kept: at its last change, the nearest time known).
 */
export async function keepReplacedText(db: Db, trx: Transaction<Database>, commentId: string, editorRef: string | null, now: string): Promise<void> {
  await lockRow(db.dialect, trx, 'comments', commentId);
  await trx
    .insertInto('comment_revisions')
    .columns(['id', 'comment_id', 'site_id', 'content', 'content_html', 'written_at', 'replaced_at', 'replaced_by'])
    .expression((eb) =>
      eb
        .selectFrom('comments as c')
        .select([
          sql.val(newId('rev')).as('id'),
          'c.id',
          'c.site_id',
          'c.content',
          'c.content_html',
          sql<string>`coalesce(
            (select max(r.replaced_at) from comment_revisions r where r.comment_id = c.id),
            case when c.is_edited = 1 then c.updated_at else c.created_at end)`.as('written_at'),
          sql.val(now).as('replaced_at'),
          sql.val(editorRef).as('replaced_by'),
        ])
        .where('c.id', '=', commentId)
        .where('c.content', 'is not', null)
        .where('c.content_html', 'is not', null),
    )
    .execute();
}
