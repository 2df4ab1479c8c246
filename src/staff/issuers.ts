import type { Kysely } from 'kysely';
import { isAdminRole, type AccountRole, type Membership } from '../auth/caller.ts';
import type { Database } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import type { LinkRow } from './links.ts';
import { membershipsOfStaff, siteIdsOf, type StaffRole } from './repository.ts';

/**
 * Who may hand out a link, decided when it is made and again when it is spent: ranks change in the
 * days a link lasts, and a link must never grant more than its issuer could grant at that moment.
 */
const RANK: Record<AccountRole, number> = { integration: 0, moderator: 1, admin: 2, owner: 3 };

/** Manages an account's team: an owner or admin (person or key) reaching every site of it. */
export function managesTeam(membership: Membership | null): membership is Membership {
  return membership !== null && isAdminRole(membership.role) && membership.siteIds === null;
}

/** Owners manage everyone; admins (people and keys) everyone below owner. */
export function mayManage(manager: Membership, role: StaffRole): boolean {
  return manager.role === 'owner' || role !== 'owner';
}

/**
 * A reset link gives whoever holds it the person's sign-in, so its issuer must outrank them in every
 * account they belong to (owners may reset anyone, admins moderators): otherwise the owner of one
 * account could take over a person who owns another. The first membership the issuer does not
 * outrank, or null.
 */
export function unoutranked(issuerIn: (accountId: string) => Membership | null, held: Membership[]): Membership | null {
  return (
    held.find((membership) => {
      const issuer = issuerIn(membership.accountId);
      return !(managesTeam(issuer) && (issuer.role === 'owner' || RANK[membership.role] < RANK[issuer.role]));
    }) ?? null
  );
}

/** What a link's issuer (a person, or an API key) holds now: none once a key is revoked. */
async function issuerMemberships(db: Kysely<Database>, ref: string): Promise<Membership[]> {
  if (!ref.startsWith('key_')) return membershipsOfStaff(db, ref);
  const key = await db.selectFrom('api_keys').select(['account_id', 'role', 'site_ids']).where('id', '=', ref).where('revoked_at', 'is', null).executeTakeFirst();
  return key ? [{ accountId: key.account_id, role: key.role as AccountRole, siteIds: siteIdsOf(key.site_ids) }] : [];
}

/**
 * Refuses an invite or reset link its issuer could not hand out now (demoted, removed, a key
 * revoked, or the reset's target risen to their rank in some account). Revocation on those changes
 * covers what the team API sees; this check holds whatever way the ranks changed.
 */
export async function requireIssuerStillMay(db: Kysely<Database>, link: LinkRow): Promise<void> {
  if (link.kind === 'setup') return;
  const held = await issuerMemberships(db, link.created_by);
  const issuerIn = (accountId: string) => held.find((membership) => membership.accountId === accountId) ?? null;
  const manager = issuerIn(link.account_id);
  if (link.kind === 'invite') {
    if (!managesTeam(manager) || !mayManage(manager, link.role as StaffRole)) {
      throw new AppError('forbidden', 'Whoever made this invite may no longer invite people for its role: ask an owner or admin of the account for a new one');
    }
  } else if (!managesTeam(manager) || unoutranked(issuerIn, await membershipsOfStaff(db, link.staff_id!)) !== null) {
    throw new AppError('forbidden', "Whoever issued this reset link may no longer reset this person's password: ask an owner for a new one");
  }
}
