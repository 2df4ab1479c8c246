import type { StaffRole } from '../src/staff/repository.ts';
import { findStaffByEmail, insertMembership, insertStaff } from '../src/staff/repository.ts';
import { hashPassword } from '../src/staff/passwords.ts';
import type { ApiResponse, TestParley } from './helper.ts';

/** The password of every staff member the tests add directly. */
export const STAFF_PASSWORD = 'correct horse battery staple';

// scrypt is slow on purpose: one hash serves every staff member a test process adds.
let passwordHash: Promise<string> | undefined;

let counter = 0;
/** An address no other test uses. */
export function staffEmail(label = 'staff'): string {
  counter += 1;
  return `${label}-${Date.now()}-${counter}@example.com`;
}

/**
 * A staff member of an account with a role, written straight into the database (as `parley admin
 * create` does); an existing address joins the account. Returns the stf_ id and the address.
 */
export async function addStaff(
  parley: TestParley,
  accountId: string,
  role: StaffRole,
  options: { email?: string; name?: string; siteIds?: string[] } = {},
): Promise<{ id: string; email: string }> {
  const db = parley.app.db.kysely;
  const email = options.email ?? staffEmail(role);
  passwordHash ??= hashPassword(STAFF_PASSWORD);
  const staff = (await findStaffByEmail(db, email)) ?? (await insertStaff(db, { email, name: options.name ?? `${role} person`, passwordHash: await passwordHash, verified: true }));
  await insertMembership(db, staff.id, accountId, role, options.siteIds ?? null);
  return { id: staff.id, email };
}

export interface StaffSignIn {
  /** `parley_staff=<token>`, as a browser sends it. */
  cookie: string;
  csrf: string;
  /** What a same-origin page's request carries: the cookie and the CSRF token. */
  headers: Record<string, string>;
  body: any;
}

/** Signs a staff member in (POST /api/auth/login) and keeps the cookie and CSRF token. */
export async function signInStaff(parley: TestParley, email: string, password = STAFF_PASSWORD, headers: Record<string, string> = {}): Promise<StaffSignIn> {
  const response = await parley.request('POST', '/api/auth/login', { body: { email, password }, headers });
  if (response.status !== 200) throw new Error(`staff sign-in failed: ${response.status} ${JSON.stringify(response.body)}`);
  return signedIn(response);
}

export function signedIn(response: ApiResponse): StaffSignIn {
  const cookie = response.headers.get('set-cookie')!.split(';')[0];
  const csrf = response.body.csrf_token as string;
  return { cookie, csrf, headers: { cookie, 'x-csrf-token': csrf }, body: response.body };
}

/**
 * A new account with its owner signed in, and an invite of it (without an address) accepted for
 * `email`: the person starts unconfirmed (and, with mail on, is mailed a confirmation link).
 */
export async function joinThroughInvite(parley: TestParley, email: string, password = STAFF_PASSWORD) {
  const site = await parley.newSite({ moderation: 'all' });
  const owner = await signInStaff(parley, (await addStaff(parley, site.account_id, 'owner')).email);
  const invite = await parley.request('POST', `/api/accounts/${site.account_id}/invites`, { headers: owner.headers, body: { role: 'admin' } });
  const accepted = await parley.request('POST', '/api/auth/invites/accept', { body: { token: invite.body.token, email, name: 'Newcomer', password } });
  return { site, owner, accepted };
}
