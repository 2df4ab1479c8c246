import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/connect.ts';
import { AppError } from '../errors.ts';
import { preparedQuery } from '../db/prepared.ts';
import { hashSecret, sameSecret } from './secrets.ts';
import { nowIso } from '../clock.ts';

export type Role = 'admin' | 'moderator' | 'integration';
export const ROLES: readonly Role[] = ['admin', 'moderator', 'integration'];

/** A key's role, or a staff member's role in an account (owner, admin, moderator; migration 0012). */
export type AccountRole = 'owner' | 'admin' | 'moderator' | 'integration';
export interface Membership {
  accountId: string;
  role: AccountRole;
  /** null: every site of the account. */
  siteIds: string[] | null;
}

interface Base {
  ip: string;
}
export interface PublicCaller extends Base {
  kind: 'public';
}
export interface KeyCaller extends Base {
  kind: 'key';
  keyId: string;
  accountId: string;
  role: Role;
  /** null: every site of the account. */
  siteIds: string[] | null;
  name: string;
}
export interface SessionCaller extends Base {
  kind: 'session';
  sessionId: string;
  accountId: string;
  siteId: string;
  userId: string;
  userName: string;
  /** The labels the site's moderators gave the user (PATCH /api/sites/:id/users/:user_id), which their new comments carry as badges. */
  labels: string[];
  moderator: boolean;
  /** The user had commented on the site when the request began (user.created is behind them). */
  hasCommented: boolean;
  /** The user's marks revision when the request began (migration 0008), which their kept marks are checked against. */
  marksRevision: number;
  /** The user had comments on the site that only they see when the request began (migration 0009). */
  hasCommentsOnlyTheySee: boolean;
}
/** A person signed in to the management API with the staff cookie (only under /api/; see src/staff). */
export interface StaffCaller extends Base {
  kind: 'staff';
  staffId: string;
  /** The server-side session the cookie names. */
  staffSessionId: string;
  name: string;
  email: string;
  memberships: Membership[];
}
export type Caller = PublicCaller | KeyCaller | SessionCaller | StaffCaller;

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}

/**
 * The credential of a request: `Authorization: Bearer <token>` first, then `X-API-Key`. A header
 * that is sent is a credential even when empty, and an empty one is invalid: never the public's.
 */
export function credentialOf(request: FastifyRequest): string | null {
  const authorization = request.headers.authorization;
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) throw new AppError('unauthorized', 'The Authorization header must be "Bearer <token>"');
    return match[1];
  }
  const apiKey = request.headers['x-api-key'];
  if (apiKey === undefined) return null;
  if (Array.isArray(apiKey)) throw new AppError('unauthorized', 'Send one X-API-Key header');
  if (apiKey === '') throw new AppError('unauthorized', 'The X-API-Key header is empty');
  return apiKey;
}

const UNKNOWN = 'The credential is unknown, revoked or expired';

// Every request with a credential runs one of these: compiled once, and on PostgreSQL planned once
// per connection, as lookups by a unique key (see db/prepared.ts).
const keyByHash = preparedQuery((db, _shape: null, hash: string) =>
  db
    .selectFrom('api_keys')
    .select(['id', 'account_id', 'role', 'site_ids', 'name', 'key_hash'])
    .where('key_hash', '=', hash)
    .where('revoked_at', 'is', null)
    .compile(),
  { planOnce: true },
);

const sessionByHash = preparedQuery((db, _shape: null, hash: string, now: string) =>
  db
    .selectFrom('sessions')
    .innerJoin('site_users', 'site_users.id', 'sessions.user_id')
    .innerJoin('sites', 'sites.id', 'sessions.site_id')
    .select([
      'sessions.id',
      'sessions.token_hash',
      'sessions.site_id',
      'sessions.user_id',
      'sessions.moderator',
      'site_users.name',
      'site_users.labels',
      'site_users.first_comment_at',
      'site_users.marks_revision',
      'site_users.comments_only_they_see',
      'sites.account_id',
    ])
    .where('sessions.token_hash', '=', hash)
    .where('sessions.revoked_at', 'is', null)
    .where('sessions.expires_at', '>', now)
    .compile(),
  { planOnce: true },
);

/**
 * Turns the request's credential into a caller. A credential that is sent but not valid is always
 * 401: it never falls back to guest or public access.
 */
export async function resolveCaller(db: Db, token: string | null, ip: string): Promise<Caller> {
  if (token === null) return { kind: 'public', ip };
  const hash = hashSecret(token);
  if (token.startsWith('sk_')) {
    const [key] = await keyByHash(db.kysely, null, hash);
    if (!key || !sameSecret(key.key_hash, hash)) throw new AppError('unauthorized', UNKNOWN);
    return {
      kind: 'key',
      ip,
      keyId: key.id,
      accountId: key.account_id,
      role: key.role as Role,
      siteIds: key.site_ids === null ? null : (JSON.parse(key.site_ids) as string[]),
      name: key.name,
    };
  }
  if (token.startsWith('sess_')) {
    const [session] = await sessionByHash(db.kysely, null, hash, nowIso());
    if (!session || !sameSecret(session.token_hash, hash)) throw new AppError('unauthorized', UNKNOWN);
    return {
      kind: 'session',
      ip,
      sessionId: session.id,
      accountId: session.account_id,
      siteId: session.site_id,
      userId: session.user_id,
      userName: session.name,
      labels: JSON.parse(session.labels),
      moderator: session.moderator === 1,
      hasCommented: session.first_comment_at !== null,
      marksRevision: session.marks_revision,
      hasCommentsOnlyTheySee: session.comments_only_they_see > 0,
    };
  }
  throw new AppError('unauthorized', UNKNOWN);
}

/** The identity a caller acts as: a site user, an API key, a staff member, or nobody (a guest). */
export function actorRef(caller: Caller): string | null {
  if (caller.kind === 'key') return caller.keyId;
  if (caller.kind === 'session') return caller.userId;
  if (caller.kind === 'staff') return caller.staffId;
  return null;
}

/** What tenancy needs of a site (a `Site` is one). */
export interface SiteOwnership {
  id: string;
  accountId: string;
}

function keyMembership(caller: KeyCaller): Membership {
  return { accountId: caller.accountId, role: caller.role, siteIds: caller.siteIds };
}

/** What the caller may do in each account it reaches: one entry for a key, one per account for staff, none for sessions and the public. */
export function membershipsOf(caller: Caller): Membership[] {
  if (caller.kind === 'key') return [keyMembership(caller)];
  if (caller.kind === 'staff') return caller.memberships;
  return [];
}

export function membershipFor(caller: Caller, accountId: string): Membership | null {
  if (caller.kind === 'key') return caller.accountId === accountId ? keyMembership(caller) : null;
  if (caller.kind === 'staff') return caller.memberships.find((membership) => membership.accountId === accountId) ?? null;
  return null;
}

const ADMIN_ROLES: ReadonlySet<AccountRole> = new Set(['owner', 'admin']);
const MODERATOR_ROLES: ReadonlySet<AccountRole> = new Set(['owner', 'admin', 'moderator']);

/** Owners and admins (staff) and admin keys manage an account's sites, keys and webhooks. */
export function isAdminRole(role: AccountRole): boolean {
  return ADMIN_ROLES.has(role);
}

/** The membership of the site's account, when it reaches that site. */
function membershipOfSite(caller: Caller, site: SiteOwnership): Membership | null {
  const membership = membershipFor(caller, site.accountId);
  return membership !== null && (membership.siteIds === null || membership.siteIds.includes(site.id)) ? membership : null;
}

/** The sites of one account a credential reaches (null: all of them), and whether it moderates them. */
export interface Reach {
  accountId: string;
  siteIds: string[] | null;
  moderator: boolean;
}

/**
 * What canAccessSite and isModerator decide for a reader's session or an API key, for a statement
 * that checks it in SQL. Null for the public and for staff, whose memberships may span accounts.
 */
export function reachOf(caller: Caller): Reach | null {
  if (caller.kind === 'session') return { accountId: caller.accountId, siteIds: [caller.siteId], moderator: caller.moderator };
  if (caller.kind === 'key') return { accountId: caller.accountId, siteIds: caller.siteIds, moderator: MODERATOR_ROLES.has(caller.role) };
  return null;
}

/** Whether the caller's credential reaches this site at all (tenancy). */
export function canAccessSite(caller: Caller, site: SiteOwnership): boolean {
  if (caller.kind === 'session') return caller.siteId === site.id;
  return membershipOfSite(caller, site) !== null;
}

export function isModerator(caller: Caller, site: SiteOwnership): boolean {
  if (caller.kind === 'session') return caller.siteId === site.id && caller.moderator;
  const membership = membershipOfSite(caller, site);
  return membership !== null && MODERATOR_ROLES.has(membership.role);
}

export function requireCredential(caller: Caller): asserts caller is KeyCaller | SessionCaller | StaffCaller {
  if (caller.kind === 'public') throw new AppError('unauthorized', 'This endpoint needs an API key or a session');
}

/** A person signed in to the dashboard (cookie session), not a key or a reader. */
export function requireStaff(caller: Caller): asserts caller is StaffCaller {
  requireCredential(caller);
  if (caller.kind !== 'staff') throw new AppError('forbidden', 'This endpoint is for staff signed in with POST /api/auth/login');
}
