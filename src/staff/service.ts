import type { FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import type { StaffCaller } from '../auth/caller.ts';
import { cleanText, MAX_AUTHOR_NAME } from '../comments/text.ts';
import type { Db } from '../db/connect.ts';
import { lockRow } from '../db/dialect.ts';
import type { Database } from '../db/schema.ts';
import { AppError, invalid } from '../errors.ts';
import type { Locale } from '../i18n/locales.ts';
import type { LoginLimiter } from '../ratelimits/login.ts';
import { CLI_ACTOR, recordAudit } from '../audit/audit.ts';
import { mayTakeOver, releaseAddress, requestConfirmation } from './addresses.ts';
import { knownDeviceOf } from './devices.ts';
import { requireIssuerStillMay } from './issuers.ts';
import { pendingLink, revokePendingLinks, spendLink, type LinkRow } from './links.ts';
import { DUMMY_PASSWORD_HASH, hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, verifyPassword } from './passwords.ts';
import {
  findStaff,
  findStaffByEmail,
  insertMembership,
  insertStaff,
  normaliseEmail,
  ownerCount,
  siteIdsOf,
  staffView,
  type StaffRole,
  type StaffRow,
} from './repository.ts';
import { endSessionsOf } from './sessions.ts';

export interface Client {
  ip: string;
  userAgent: string | null;
}

/** A new password: 10 to 200 characters of well-formed text; anything else is the person's choice. */
function checkPassword(path: string, password: string): string {
  if (!password.isWellFormed()) throw invalid(path, 'must be valid Unicode text');
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH || length > MAX_PASSWORD_LENGTH) {
    throw invalid(path, `must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`);
  }
  return password;
}

const WRONG = 'The email or password is wrong';

/**
 * Proves a password for an address, counted by the sign-in limits. An unknown address is checked
 * against a dummy hash with the same parameters, so it costs (and answers) the same as a wrong password.
 */
async function provePassword(limiter: LoginLimiter, email: string, password: string, ip: string, reply: FastifyReply, staff: StaffRow | undefined, knownDevice: string | null = null) {
  const attempt = await limiter.attempt(email, ip, reply, knownDevice);
  const matches = await verifyPassword(password, staff?.password_hash ?? DUMMY_PASSWORD_HASH);
  if (!staff || !matches) throw new AppError('unauthorized', WRONG);
  await attempt.succeeded();
  return staff;
}

/** Signs in with a password; `deviceCookie` is the request's device cookie (devices.ts), if any. */
export async function signIn(db: Db, limiter: LoginLimiter, input: { email: string; password: string }, ip: string, reply: FastifyReply, deviceCookie: string | null) {
  const email = normaliseEmail(input.email);
  const found = await findStaffByEmail(db.kysely, email);
  const device = knownDeviceOf(deviceCookie, found);
  return { staff: await provePassword(limiter, email, input.password, ip, reply, found, device), device };
}

/** Changes the signed-in person's password and ends their other sessions. */
export async function changePassword(db: Db, limiter: LoginLimiter, caller: StaffCaller, input: { current_password: string; new_password: string }, reply: FastifyReply) {
  const password = checkPassword('body/new_password', input.new_password);
  const staff = await findStaff(db.kysely, caller.staffId);
  await provePassword(limiter, caller.email, input.current_password, caller.ip, reply, staff);
  const passwordHash = await hashPassword(password);
  const ended = await db.kysely.transaction().execute(async (trx) => {
    await trx.updateTable('staff').set({ password_hash: passwordHash, updated_at: new Date().toISOString() }).where('id', '=', caller.staffId).execute();
    return endSessionsOf(trx, caller.staffId, caller.staffSessionId);
  });
  return { ended_sessions: ended };
}

/** The signed-in person's language: their dashboard's, and their mails'. */
export async function changeLanguage(db: Db, caller: StaffCaller, language: Locale | null) {
  await db.kysely.updateTable('staff').set({ language, updated_at: new Date().toISOString() }).where('id', '=', caller.staffId).execute();
  return { language };
}

export interface JoinInput {
  token: string;
  email?: string;
  name?: string;
  password: string;
}

/**
 * Accepts an invite (or the setup link, an invite to own the demo account): a new address becomes a
 * new staff member with this name and password; a known one proves its password and joins.
 */
export async function joinThroughLink(db: Db, limiter: LoginLimiter, kind: 'invite' | 'setup', input: JoinInput, ip: string, reply: FastifyReply) {
  const link = await pendingLink(db.kysely, kind, input.token);
  const email = emailFor(link, input.email);
  const holder = await findStaffByEmail(db.kysely, email);
  const existing = holder && (await holderJoining(db, limiter, holder, input.password, ip, reply));
  let passwordHash: string | null = null;
  if (!existing) {
    checkPassword('body/password', input.password);
    passwordHash = await hashPassword(input.password);
  }
  const name = existing ? existing.name : cleanText('body/name', required('body/name', input.name), MAX_AUTHOR_NAME);
  const joined = await db.kysely.transaction().execute(async (trx) => {
    await lockRow(db.dialect, trx, 'accounts', link.account_id);
    if (kind === 'setup' && (await ownerCount(trx, link.account_id)) > 0) {
      throw new AppError('conflict', 'This account already has an owner: sign in, or ask the owner for an invite');
    }
    if (holder && !existing) await releaseAddress(trx, holder);
    const staff = existing ?? (await insertStaff(trx, { email, name, passwordHash: passwordHash!, verified: false }));
    if (!existing) await requestConfirmation(db, trx, staff, link.account_id);
    const already = await trx.selectFrom('staff_memberships').select('role').where('staff_id', '=', staff.id).where('account_id', '=', link.account_id).executeTakeFirst();
    if (already) throw new AppError('conflict', `${email} is already a member of this account`);
    await requireIssuerStillMay(trx, link);
    await spendLink(trx, link, staff.id);
    // A new membership changes what a reset of this person needs: earlier reset links stop working.
    if (existing) await revokePendingLinks(trx, { kind: 'reset', staffId: staff.id });
    const role = link.role as StaffRole;
    const siteIds = siteIdsOf(link.site_ids);
    await insertMembership(trx, staff.id, link.account_id, role, siteIds);
    await recordAudit(trx, { accountId: link.account_id, actor: { ref: staff.id, name: staff.name }, action: 'member.joined', target: staff.id, data: { role, site_ids: siteIds, link: link.id } });
    return { staff: staffView(staff), membership: { account_id: link.account_id, role, site_ids: siteIds } };
  });
  if (db.mail && !existing) db.changes.mailsQueued();
  return joined;
}

/**
 * The person already holding the address a join names: they join when the password is theirs. A
 * wrong password is refused, but for an address its holder never confirmed: then the joiner is a
 * new person who takes the address over (undefined), and the link mailed to it decides.
 */
async function holderJoining(db: Db, limiter: LoginLimiter, holder: StaffRow, password: string, ip: string, reply: FastifyReply): Promise<StaffRow | undefined> {
  try {
    return await provePassword(limiter, holder.email, password, ip, reply, holder);
  } catch (error) {
    if (error instanceof AppError && error.code === 'unauthorized' && mayTakeOver(db, holder)) return undefined;
    throw error;
  }
}

function required(path: string, value: string | undefined): string {
  if (value === undefined) throw invalid(path, 'is required');
  return value;
}

/** The address an invite is accepted for: the one it was made for, or the one given. */
function emailFor(link: LinkRow, given: string | undefined): string {
  if (link.email === null) return normaliseEmail(required('body/email', given));
  if (given !== undefined && normaliseEmail(given) !== link.email) throw invalid('body/email', 'must be the address this invite was made for, or left out');
  return link.email;
}

/** Sets a new password through a reset link and ends every session of that person. */
export async function resetPassword(db: Db, input: { token: string; password: string }) {
  const link = await pendingLink(db.kysely, 'reset', input.token);
  const passwordHash = await hashPassword(checkPassword('body/password', input.password));
  return db.kysely.transaction().execute(async (trx) => {
    await lockRow(db.dialect, trx, 'accounts', link.account_id);
    await requireIssuerStillMay(trx, link);
    const staff = (await findStaff(trx, link.staff_id!))!;
    await spendLink(trx, link, staff.id);
    await trx.updateTable('staff').set({ password_hash: passwordHash, updated_at: new Date().toISOString() }).where('id', '=', staff.id).execute();
    const ended = await endSessionsOf(trx, staff.id, null);
    await recordAudit(trx, { accountId: link.account_id, actor: { ref: staff.id, name: staff.name }, action: 'member.password_reset', target: staff.id, data: { link: link.id } });
    return { staff: staffView(staff), ended_sessions: ended };
  });
}

/** A CLI input that breaks a rule, said in one line naming the input. */
function checkedInput<T>(what: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    throw new Error(`${what} ${error instanceof AppError ? (error.errors?.[0]?.message ?? error.message) : String(error)}`);
  }
}

/**
 * `parley admin create`: a new person who owns the account; `accountId` may be left out when the
 * database has exactly one account. Pending setup links of the account are revoked: it has an owner.
 * The address counts as confirmed: the operator vouches for it.
 */
export async function createOwner(db: Db, input: { email: string; name?: string; password: string; accountId?: string }) {
  const email = normaliseEmail(input.email);
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 254) throw new Error(`--email: "${input.email}" is not an email address`);
  checkedInput('the password', () => checkPassword('password', input.password));
  const name = checkedInput('--name', () => cleanText('name', input.name ?? email.split('@')[0], MAX_AUTHOR_NAME));
  const accountId = input.accountId ?? (await onlyAccount(db.kysely));
  const passwordHash = await hashPassword(input.password);
  return db.kysely.transaction().execute(async (trx) => {
    const account = await trx.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst();
    if (!account) throw new Error(`no account ${accountId}`);
    if (await findStaffByEmail(trx, email)) throw new Error(`${email} is already a staff member: sign in, or have an owner issue a reset link`);
    const staff = await insertStaff(trx, { email, name, passwordHash, verified: true });
    await insertMembership(trx, staff.id, accountId, 'owner', null);
    await revokePendingLinks(trx, { kind: 'setup', accountId });
    await recordAudit(trx, { accountId, actor: CLI_ACTOR, action: 'member.created', target: staff.id, data: { role: 'owner' } });
    return { staff_id: staff.id, email, name, account_id: accountId, role: 'owner' as const };
  });
}

async function onlyAccount(db: Kysely<Database>): Promise<string> {
  const accounts = await db.selectFrom('accounts').select('id').orderBy('created_at').limit(6).execute();
  if (accounts.length === 1) return accounts[0].id;
  if (accounts.length === 0) throw new Error('there is no account yet: start the server once (npm start) or run parley bootstrap first');
  throw new Error(`there are several accounts: name one with --account (${accounts.map((a) => a.id).join(', ')}${accounts.length > 5 ? ', …' : ''})`);
}
