import type { Caller } from '../auth/caller.ts';
import { requireCapability, requireSiteCapability } from '../auth/management.ts';
import { commentWithSite } from '../comments/service.ts';
import type { Db } from '../db/connect.ts';

/** A comment's earlier versions (comments/revisions.ts keeps them), oldest first, for its site's moderators. */
export async function listRevisions(db: Db, caller: Caller, commentId: string) {
  requireCapability(caller, 'moderate');
  const { site } = await commentWithSite(db, commentId);
  requireSiteCapability(caller, site, 'moderate', `comment ${commentId}`);
  const revisions = await db.kysely
    .selectFrom('comment_revisions')
    .select(['content', 'content_html', 'written_at', 'replaced_at'])
    .where('site_id', '=', site.id)
    .where('comment_id', '=', commentId)
    .orderBy('replaced_at')
    .orderBy('id')
    .execute();
  return { revisions };
}
