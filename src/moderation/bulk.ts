import type { Caller } from '../auth/caller.ts';
import { requireCapability, requireSiteCapability } from '../auth/management.ts';
import { commentWithSite } from '../comments/service.ts';
import type { Db } from '../db/connect.ts';
import { AppError, toProblem } from '../errors.ts';
import { dismissFlags } from './flags.ts';
import { applyModeration, moderatorOf, type ModerationAction, type ModerationResult, type Moderator } from './service.ts';

export const BULK_ACTIONS = ['approve', 'remove', 'spam', 'shadow_ban', 'unhide', 'dismiss_flags'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

/**
 * One action on up to 100 comments, each handled as PATCH /v1/comments/:id/moderate handles one
 * (same rules, log entries and events; dismiss_flags as flags.ts does), each in its own
 * transaction, and answered per id: a comment the caller cannot moderate fails alone.
 */
export function moderateMany(db: Db, caller: Caller, ids: string[], action: BulkAction, reason: string | null) {
  return eachComment(db, caller, ids, (moderator, comment, site) =>
    action === 'dismiss_flags' ? dismissFlags(db, moderator, comment, site, reason) : applyModeration(db, moderator, comment, site, action satisfies ModerationAction, reason),
  );
}

type Found = Awaited<ReturnType<typeof commentWithSite>>;

/** Does `act` on each comment the caller moderates, answering per id: an id refused or out of reach fails alone, with its problem. */
export async function eachComment(db: Db, caller: Caller, ids: string[], act: (moderator: Moderator, comment: Found['comment'], site: Found['site']) => Promise<ModerationResult>) {
  requireCapability(caller, 'moderate');
  const moderator = moderatorOf(caller);
  const results = [];
  for (const id of ids) {
    try {
      const { comment, site } = await commentWithSite(db, id);
      requireSiteCapability(caller, site, 'moderate', `comment ${id}`);
      results.push({ id, ok: true as const, result: await act(moderator, comment, site) });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      results.push({ id, ok: false as const, error: toProblem(error.code, error.message, error.errors) });
    }
  }
  return { results };
}
