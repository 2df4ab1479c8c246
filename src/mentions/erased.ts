import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import { MENTION } from '../formatting/mentions.ts';
import { renderForSite } from '../formatting/render.ts';
import type { Formatting } from '../formatting/html.ts';

/** A source with every mention of `userId` naming `name` instead of the name it was written with. */
function renamedMentions(source: string, userId: string, name: string): string {
  return source.replace(MENTION, (whole, _typed: string, id: string) => (id === userId ? `@[${name}](${id})` : whole));
}

/**
 * Comments (and the earlier texts moderators keep) that mention a user being erased stop naming
 * them: each of their mentions in a source, in code too, is written `@[<erasedName>](usr_…)`, which
 * renders as that text without a link (the user is erased), and `content_html` and `mentions` are
 * made again from it. In the erasure's transaction, after the user's row is marked erased; the
 * comments' revisions move with it (their trigger), so cached lists change. Answers how many
 * comments changed.
 */
export async function unmentionErasedUser(trx: Transaction<Database>, site: { id: string; formatting: Formatting }, userId: string, erasedName: string): Promise<number> {
  const written = `%](${userId})%`;
  const comments = await trx.selectFrom('comments').select(['id', 'content']).where('site_id', '=', site.id).where('content', 'like', written).execute();
  let changed = 0;
  for (const comment of comments) {
    const content = renamedMentions(comment.content!, userId, erasedName);
    if (content === comment.content) continue;
    const rendered = await renderForSite(trx, site, content);
    await trx.updateTable('comments').set({ content, content_html: rendered.content_html, mentions: JSON.stringify(rendered.mentions) }).where('id', '=', comment.id).execute();
    changed += 1;
  }
  const revisions = await trx.selectFrom('comment_revisions').select(['id', 'content']).where('site_id', '=', site.id).where('content', 'like', written).execute();
  for (const revision of revisions) {
    const content = renamedMentions(revision.content, userId, erasedName);
    if (content === revision.content) continue;
    const { content_html } = await renderForSite(trx, site, content);
    await trx.updateTable('comment_revisions').set({ content, content_html }).where('id', '=', revision.id).execute();
  }
  return changed;
}
