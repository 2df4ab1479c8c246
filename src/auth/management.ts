import { AppError } from '../errors.ts';
import { membershipFor, membershipsOf, requireCredential, type AccountRole, type Caller, type Membership, type SiteOwnership } from './caller.ts';

/**
 * Who may use the management API (`/api`): every decision goes through the caller's memberships
 * (caller.ts), whatever credential they came from. To moderate a site is to hold owner, admin or
 * moderator in its account with the site in reach; to administer is owner or admin.
 */
export type Capability = 'moderate' | 'administer';

const ROLES: Record<Capability, readonly AccountRole[]> = {
  moderate: ['owner', 'admin', 'moderator'],
  administer: ['owner', 'admin'],
};

const NEEDS: Record<Capability, string> = {
  moderate: 'This endpoint needs an owner, admin or moderator role (an admin or moderator API key)',
  administer: 'This endpoint needs an owner or admin role (an admin API key)',
};

export function grants(membership: Membership, capability: Capability): boolean {
  return ROLES[capability].includes(membership.role);
}

export function reachesSite(membership: Membership, siteId: string): boolean {
  return membership.siteIds === null || membership.siteIds.includes(siteId);
}

/**
 * The caller's memberships that grant the capability: 401 without a credential, 403 when none does.
 * Decided by role before any lookup, so a caller without the role learns nothing of any id.
 */
export function requireCapability(caller: Caller, capability: Capability): Membership[] {
  requireCredential(caller);
  const granting = membershipsOf(caller).filter((membership) => grants(membership, capability));
  if (granting.length === 0) throw new AppError('forbidden', NEEDS[capability]);
  return granting;
}

/**
 * For a site (or something of it, named by `what` in the 404): 404 when no membership of the
 * caller reaches the site (another account's, or outside a key's sites), 403 when one reaches it
 * without the role. Call requireCapability first, before the site is looked up.
 */
export function requireSiteCapability(caller: Caller, site: SiteOwnership, capability: Capability, what = `site ${site.id}`): Membership {
  const membership = membershipFor(caller, site.accountId);
  if (!membership || !reachesSite(membership, site.id)) throw new AppError('not_found', `No ${what}`);
  if (!grants(membership, capability)) throw new AppError('forbidden', NEEDS[capability]);
  return membership;
}

/**
 * The account a caller changes account-wide things in (its keys, its sites): one it administers,
 * named by `accountId` or, when left out, the only one. The membership may be limited to some sites;
 * see accountToAdminister for changes that reach every site.
 */
export function administeredAccount(caller: Caller, accountId: string | undefined): Membership {
  const granting = requireCapability(caller, 'administer');
  if (accountId === undefined) {
    if (granting.length > 1) throw new AppError('validation_failed', 'Name the account', [{ path: 'body/account_id', message: 'is required when the caller administers several accounts' }]);
    return granting[0];
  }
  const membership = membershipFor(caller, accountId);
  if (!membership) throw new AppError('not_found', `No account ${accountId}`);
  if (!grants(membership, 'administer')) throw new AppError('forbidden', NEEDS.administer);
  return membership;
}

/** As administeredAccount, for a change that reaches every site of the account (a new site). */
export function accountToAdminister(caller: Caller, accountId: string | undefined): Membership {
  const membership = administeredAccount(caller, accountId);
  if (membership.siteIds !== null) throw new AppError('forbidden', 'A credential limited to some sites cannot make account-wide changes');
  return membership;
}
