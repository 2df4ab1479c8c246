import type { Kysely, Selectable } from 'kysely';
import type { AccountRole, Membership } from '../auth/caller.ts';
import { nowIso } from '../clock.ts';
import type { Database, StaffMembershipTable, StaffTable } from '../db/schema.ts';
import { newId } from '../ids.ts';

export type StaffRow = Selectable<StaffTable>;

/** The roles a person can hold in an account (keys have `integration` besides). */
export const STAFF_ROLES = ['owner', 'admin', 'moderator'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

/** Addresses are compared and stored lower-cased and trimmed. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** A stored site scope (a JSON array, or null for every site). */
export function siteIdsOf(stored: string | null): string[] | null {
  return stored === null ? null : (JSON.parse(stored) as string[]);
}

export function storedSiteIds(siteIds: string[] | null): string | null {
  return siteIds === null ? null : JSON.stringify(siteIds);
}

function toMembership(row: Pick<Selectable<StaffMembershipTable>, 'account_id' | 'role' | 'site_ids'>): Membership {
  return { accountId: row.account_id, role: row.role as AccountRole, siteIds: siteIdsOf(row.site_ids) };
}

export function staffView(staff: Pick<StaffRow, 'id' | 'email' | 'name' | 'email_verified_at'>) {
  return { id: staff.id, email: staff.email, email_verified: staff.email_verified_at !== null, name: staff.name };
}

export async function findStaffByEmail(db: Kysely<Database>, email: string): Promise<StaffRow | undefined> {
  return db.selectFrom('staff').selectAll().where('email', '=', normaliseEmail(email)).executeTakeFirst();
}

export async function findStaff(db: Kysely<Database>, staffId: string): Promise<StaffRow | undefined> {
  return db.selectFrom('staff').selectAll().where('id', '=', staffId).executeTakeFirst();
}

export async function membershipsOfStaff(db: Kysely<Database>, staffId: string): Promise<Membership[]> {
  const rows = await db.selectFrom('staff_memberships').select(['account_id', 'role', 'site_ids']).where('staff_id', '=', staffId).orderBy('created_at').execute();
  return rows.map(toMembership);
}

/** A person's memberships with their accounts' names, as /api/auth/me shows them. */
export async function namedMemberships(db: Kysely<Database>, staffId: string) {
  const rows = await db
    .selectFrom('staff_memberships')
    .innerJoin('accounts', 'accounts.id', 'staff_memberships.account_id')
    .select(['staff_memberships.account_id', 'accounts.name as account_name', 'staff_memberships.role', 'staff_memberships.site_ids'])
    .where('staff_memberships.staff_id', '=', staffId)
    .orderBy('staff_memberships.created_at')
    .execute();
  return rows.map((row) => ({ account_id: row.account_id, account_name: row.account_name, role: row.role as StaffRole, site_ids: siteIdsOf(row.site_ids) }));
}

/**
 * A new staff member. `verified`: the address is taken as theirs (one the operator gives on the
 * command line); a person joining through a link proves theirs by mail (addresses.ts).
 */
export async function insertStaff(db: Kysely<Database>, input: { email: string; name: string; passwordHash: string; verified: boolean }): Promise<StaffRow> {
  const now = nowIso();
  const row = {
    id: newId('stf'),
    email: normaliseEmail(input.email),
    name: input.name,
    password_hash: input.passwordHash,
    created_at: now,
    updated_at: now,
    moderation_mail: 'off',
    email_verified_at: input.verified ? now : null,
    language: null,
    moderation_mail_frequency: 'instant',
    time_zone: null,
    digest_due_at: null,
  };
  await db.insertInto('staff').values(row).execute();
  return row;
}

export async function insertMembership(db: Kysely<Database>, staffId: string, accountId: string, role: StaffRole, siteIds: string[] | null): Promise<void> {
  await db
    .insertInto('staff_memberships')
    .values({ staff_id: staffId, account_id: accountId, role, site_ids: storedSiteIds(siteIds), created_at: nowIso() })
    .execute();
}

export async function ownerCount(db: Kysely<Database>, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('staff_memberships')
    .select((eb) => eb.fn.countAll<string | number>().as('owners'))
    .where('account_id', '=', accountId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.owners);
}

/** Whether these are sites of the account (a moderator's scope, an invite's). */
export async function allSitesOfAccount(db: Kysely<Database>, accountId: string, siteIds: string[]): Promise<boolean> {
  const owned = await db.selectFrom('sites').select('id').where('account_id', '=', accountId).where('id', 'in', siteIds).execute();
  return owned.length === new Set(siteIds).size;
}
