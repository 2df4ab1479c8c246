import type { Kysely } from 'kysely';
import type { AccountRole, Caller, Membership, SiteOwnership } from '../auth/caller.ts';
import { grants, reachesSite } from '../auth/management.ts';
import { nowIso } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import { membershipsOfStaff, siteIdsOf } from '../staff/repository.ts';

/** Whether a queue stream's holder still moderates every site it streams; asked every heartbeat. */
export type QueueAccess = () => Promise<boolean>;

/** What the caller's credential holds now: nothing once a key is revoked or a staff session has ended. */
async function membershipsNow(db: Kysely<Database>, caller: Caller): Promise<Membership[]> {
  if (caller.kind === 'key') {
    const key = await db.selectFrom('api_keys').select(['account_id', 'role', 'site_ids']).where('id', '=', caller.keyId).where('revoked_at', 'is', null).executeTakeFirst();
    return key ? [{ accountId: key.account_id, role: key.role as AccountRole, siteIds: siteIdsOf(key.site_ids) }] : [];
  }
  if (caller.kind !== 'staff') return [];
  const session = await db
    .selectFrom('staff_sessions')
    .select('id')
    .where('id', '=', caller.staffSessionId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', nowIso())
    .executeTakeFirst();
  return session ? membershipsOfStaff(db, caller.staffId) : [];
}

/**
 * A stream is granted when it opens, but a member removed, a moderator's sites narrowed, a key
 * revoked or a session ended must stop it: the hub asks this every heartbeat and ends the stream
 * when the answer is no (its EventSource then reconnects, and is refused or gets the sites it has now).
 */
export function queueAccessOf(db: Kysely<Database>, caller: Caller, sites: SiteOwnership[]): QueueAccess {
  return async () => {
    const memberships = await membershipsNow(db, caller);
    return sites.every((site) =>
      memberships.some((membership) => membership.accountId === site.accountId && reachesSite(membership, site.id) && grants(membership, 'moderate')),
    );
  };
}
