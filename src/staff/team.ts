import type { Kysely } from 'kysely';
import { membershipFor, type Caller, type Membership } from '../auth/caller.ts';
import { administeredAccount } from '../auth/management.ts';
import type { Db } from '../db/connect.ts';
import { lockRow } from '../db/dialect.ts';
import type { Database } from '../db/schema.ts';
import { AppError, invalid } from '../errors.ts';
import { actorOf, auditLog, recordAudit } from '../audit/audit.ts';
import { managesTeam, mayManage, unoutranked } from './issuers.ts';
import { createLink, linkState, linkUrl, revokePendingLinks, type LinkRow } from './links.ts';
import { allSitesOfAccount, membershipsOfStaff, normaliseEmail, ownerCount, siteIdsOf, storedSiteIds, type StaffRole } from './repository.ts';
import { queueMail } from '../mail/outbox.ts';

/**
 * Who manages an account's team: its owners and admins, and its admin keys (not one limited to some
 * sites). Other roles are 403 before any lookup; other accounts 404.
 */
function teamManager(caller: Caller, accountId: string): Membership {
  const manager = administeredAccount(caller, accountId);
  if (!managesTeam(manager)) {
    throw new AppError('forbidden', "Managing the team needs an owner or admin of the account, or an admin key for all of its sites");
  }
  return manager;
}

function requireMayManage(manager: Membership, role: StaffRole): void {
  if (!mayManage(manager, role)) throw new AppError('forbidden', 'Only an owner invites, changes or removes owners');
}

/** Checks a role's site scope: only moderators may be limited to some sites (of this account). */
async function siteScope(db: Kysely<Database>, accountId: string, role: StaffRole, siteIds: string[] | null | undefined, current: string[] | null = null) {
  if (role !== 'moderator') {
    if (siteIds) throw invalid('body/site_ids', 'limits moderators only; owners and admins reach every site');
    return null;
  }
  if (siteIds === undefined) return current;
  if (siteIds === null) return null;
  if (siteIds.length === 0) throw invalid('body/site_ids', 'must name at least one site, or be null for every site');
  if (!(await allSitesOfAccount(db, accountId, siteIds))) throw invalid('body/site_ids', 'must be sites of this account');
  return [...new Set(siteIds)];
}

const MEMBER_COLUMNS = ['staff.id', 'staff.email', 'staff.email_verified_at', 'staff.name', 'staff_memberships.role', 'staff_memberships.site_ids', 'staff_memberships.created_at'] as const;

function memberView(row: { id: string; email: string; email_verified_at: string | null; name: string; role: string; site_ids: string | null; created_at: string }) {
  return {
    id: row.id,
    email: row.email,
    email_verified: row.email_verified_at !== null,
    name: row.name,
    role: row.role as StaffRole,
    site_ids: siteIdsOf(row.site_ids),
    joined_at: row.created_at,
  };
}

function membersQuery(db: Kysely<Database>, accountId: string) {
  return db
    .selectFrom('staff_memberships')
    .innerJoin('staff', 'staff.id', 'staff_memberships.staff_id')
    .select(MEMBER_COLUMNS)
    .where('staff_memberships.account_id', '=', accountId);
}

async function memberOrNotFound(db: Kysely<Database>, accountId: string, staffId: string) {
  const row = await membersQuery(db, accountId).where('staff.id', '=', staffId).executeTakeFirst();
  if (!row) throw new AppError('not_found', `No member ${staffId} in this account`);
  return row;
}

export async function listMembers(db: Db, caller: Caller, accountId: string) {
  teamManager(caller, accountId);
  const rows = await membersQuery(db.kysely, accountId).orderBy('staff_memberships.created_at').orderBy('staff.id').execute();
  return { members: rows.map(memberView) };
}

const LAST_OWNER = 'The last owner cannot leave, be removed or be demoted: make someone else owner first';

export async function changeMember(db: Db, caller: Caller, accountId: string, staffId: string, input: { role?: StaffRole; site_ids?: string[] | null }) {
  const manager = teamManager(caller, accountId);
  return db.kysely.transaction().execute(async (trx) => {
    await lockRow(db.dialect, trx, 'accounts', accountId);
    const member = await memberOrNotFound(trx, accountId, staffId);
    const from = member.role as StaffRole;
    const to = input.role ?? from;
    requireMayManage(manager, from);
    requireMayManage(manager, to);
    const siteIds = await siteScope(trx, accountId, to, input.site_ids, siteIdsOf(member.site_ids));
    if (from === 'owner' && to !== 'owner' && (await ownerCount(trx, accountId)) <= 1) throw new AppError('conflict', LAST_OWNER);
    await trx
      .updateTable('staff_memberships')
      .set({ role: to, site_ids: storedSiteIds(siteIds) })
      .where('staff_id', '=', staffId)
      .where('account_id', '=', accountId)
      .execute();
    if (to !== from || storedSiteIds(siteIds) !== member.site_ids) await revokeLinksOnChange(trx, accountId, staffId, from, to);
    await recordAudit(trx, { accountId, actor: actorOf(caller), action: 'member.changed', target: staffId, data: { from, to, site_ids: siteIds } });
    return memberView({ ...member, role: to, site_ids: storedSiteIds(siteIds) });
  });
}

const ISSUES_LINKS: ReadonlySet<StaffRole> = new Set(['owner', 'admin']);

/**
 * A member's roles changed (`to` null: removed). Reset links for them stop working, whoever issued
 * them: they were weighed against the roles they had. The links they made here stop working once
 * they lose rank (or leave): the links were made with the rank they had.
 */
async function revokeLinksOnChange(trx: Kysely<Database>, accountId: string, staffId: string, from: StaffRole, to: StaffRole | null): Promise<void> {
  await revokePendingLinks(trx, { kind: 'reset', staffId });
  if (from === to || (from === 'admin' && to === 'owner')) return;
  if (ISSUES_LINKS.has(from)) await revokePendingLinks(trx, { accountId, createdBy: staffId });
}

/** Removes a member; anyone may leave on their own, except the last owner. */
export async function removeMember(db: Db, caller: Caller, accountId: string, staffId: string) {
  const leaving = caller.kind === 'staff' && caller.staffId === staffId && membershipFor(caller, accountId) !== null;
  const manager = leaving ? null : teamManager(caller, accountId);
  return db.kysely.transaction().execute(async (trx) => {
    await lockRow(db.dialect, trx, 'accounts', accountId);
    const member = await memberOrNotFound(trx, accountId, staffId);
    if (manager) requireMayManage(manager, member.role as StaffRole);
    if (member.role === 'owner' && (await ownerCount(trx, accountId)) <= 1) throw new AppError('conflict', LAST_OWNER);
    await trx.deleteFrom('staff_memberships').where('staff_id', '=', staffId).where('account_id', '=', accountId).execute();
    await revokeLinksOnChange(trx, accountId, staffId, member.role as StaffRole, null);
    await recordAudit(trx, { accountId, actor: actorOf(caller), action: leaving ? 'member.left' : 'member.removed', target: staffId, data: { role: member.role } });
    return memberView(member);
  });
}

function inviteView(row: LinkRow) {
  return {
    id: row.id,
    role: row.role as StaffRole,
    site_ids: siteIdsOf(row.site_ids),
    email: row.email,
    state: linkState(row),
    created_by: row.created_by,
    created_at: row.created_at,
    expires_at: row.expires_at,
    used_by: row.used_by,
  };
}

export async function invite(db: Db, caller: Caller, accountId: string, input: { role: StaffRole; site_ids?: string[] | null; email?: string }, base: string) {
  const manager = teamManager(caller, accountId);
  requireMayManage(manager, input.role);
  const siteIds = await siteScope(db.kysely, accountId, input.role, input.site_ids);
  const actor = actorOf(caller);
  const email = input.email === undefined ? null : normaliseEmail(input.email);
  return db.kysely.transaction().execute(async (trx) => {
    const { row, token } = await createLink(trx, { kind: 'invite', accountId, createdBy: actor.ref, email, role: input.role, siteIds });
    await recordAudit(trx, { accountId, actor, action: 'member.invited', target: row.id, data: { role: input.role, site_ids: siteIds, email } });
    return { ...inviteView(row), token, url: linkUrl(base, 'invite', token) };
  });
}

export async function listInvites(db: Db, caller: Caller, accountId: string) {
  teamManager(caller, accountId);
  const rows = await db.kysely
    .selectFrom('staff_links')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('kind', '=', 'invite')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(500)
    .execute();
  return { invites: rows.map(inviteView) };
}

/** Revokes an invite (idempotent; a used or expired one is left as it is). */
export async function revokeInvite(db: Db, caller: Caller, accountId: string, inviteId: string) {
  const manager = teamManager(caller, accountId);
  const row = await db.kysely.selectFrom('staff_links').selectAll().where('id', '=', inviteId).where('account_id', '=', accountId).where('kind', '=', 'invite').executeTakeFirst();
  if (!row) throw new AppError('not_found', `No invite ${inviteId}`);
  requireMayManage(manager, row.role as StaffRole);
  if (linkState(row) !== 'pending') return inviteView(row);
  return db.kysely.transaction().execute(async (trx) => {
    row.revoked_at = new Date().toISOString();
    await trx.updateTable('staff_links').set({ revoked_at: row.revoked_at }).where('id', '=', inviteId).where('used_at', 'is', null).execute();
    await recordAudit(trx, { accountId, actor: actorOf(caller), action: 'invite.revoked', target: inviteId });
    return inviteView(row);
  });
}

/** A reset link for a member, from someone who outranks them in every account they belong to (see unoutranked). */
export async function issueResetLink(db: Db, caller: Caller, accountId: string, staffId: string, base: string) {
  teamManager(caller, accountId);
  const target = await memberOrNotFound(db.kysely, accountId, staffId);
  const refused = unoutranked((account) => membershipFor(caller, account), await membershipsOfStaff(db.kysely, staffId));
  if (refused) {
    throw new AppError('forbidden', refused.accountId === accountId ? 'Only an owner resets the password of an owner or admin' : 'This person belongs to other accounts too: an owner of each of them must issue the reset');
  }
  const actor = actorOf(caller);
  const issued = await db.kysely.transaction().execute(async (trx) => {
    await revokePendingLinks(trx, { kind: 'reset', staffId });
    const { row, token } = await createLink(trx, { kind: 'reset', accountId, staffId, createdBy: actor.ref });
    await recordAudit(trx, { accountId, actor, action: 'member.reset_link_issued', target: staffId, data: { link: row.id } });
    const url = linkUrl(db.mail?.publicUrl ?? base, 'reset', token);
    // With mail on, the person gets the link too (queued with it: no link without its mail, nor the
    // reverse), at an address they confirmed: an unconfirmed one may be someone else's.
    const mailed = db.mail !== null && target.email_verified_at !== null;
    if (mailed) await queueMail(trx, { kind: 'reset', cause: row.id, recipient: target.email, siteId: null, data: { url } });
    return { id: row.id, staff_id: staffId, token, url, created_at: row.created_at, expires_at: row.expires_at };
  });
  if (db.mail) db.changes.mailsQueued();
  return issued;
}

export async function auditLogOf(db: Db, caller: Caller, accountId: string, page: number, limit: number) {
  teamManager(caller, accountId);
  return auditLog(db.kysely, accountId, page, limit);
}
