import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { actorRef, canAccessSite, isModerator, type Caller, type SiteOwnership } from '../auth/caller.ts';

/** Who is looking: their author identity (null for the public) and whether they moderate the site. */
export interface Viewer {
  ref: string | null;
  moderator: boolean;
}

export const PUBLIC_VIEWER: Viewer = { ref: null, moderator: false };

/** A credential of another tenant reads a site exactly as the public does. */
export function viewerFor(caller: Caller, site: SiteOwnership): Viewer {
  if (!canAccessSite(caller, site)) return PUBLIC_VIEWER;
  return { ref: actorRef(caller), moderator: isModerator(caller, site) };
}

/**
 * The one definition of "this row may be shown to this viewer", as SQL over a table alias.
 * Moderators see everything; others see published comments that are not shadow-banned, plus their
 * own pending and shadow-banned ones. (Whether an ancestor hides a row is decided by the tree.)
 */
export function visibleTo(viewer: Viewer, alias: string): RawBuilder<SqlBool> {
  if (viewer.moderator) return sql<SqlBool>`1 = 1`;
  const status = sql.ref(`${alias}.status`);
  const moderation = sql.ref(`${alias}.moderation_status`);
  const publicRow = sql<SqlBool>`(${status} = 'published' and ${moderation} is null)`;
  if (viewer.ref === null) return publicRow;
  const author = sql.ref(`${alias}.author_ref`);
  return sql<SqlBool>`(${publicRow} or (${author} = ${viewer.ref} and ${status} in ('published', 'pending')))`;
}
