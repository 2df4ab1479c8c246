import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/connect.ts';
import { AppError } from '../errors.ts';
import { preparedQuery } from '../db/prepared.ts';
import { hashSecret, sameSecret } from './secrets.ts';
import { nowIso } from '../clock.ts';

export type Role = 'admin' | 'moderator' | 'integration';
export const ROLES: readonly Role[] = ['admin', 'moderator', 'integration'];

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
  moderator: boolean;
  /** The user had commented on the site when the request began (user.created is behind them). */
  hasCommented: boolean;
  /** The user's marks revision when the request began (migration 0008), which their kept marks are checked against. */
  marksRevision: number;
  /** The user had comments on the site that only they see when the request began (migration 0009). */
  hasCommentsOnlyTheySee: boolean;
}
export type Caller = PublicCaller | KeyCaller | SessionCaller;

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}

/** The credential of a request: `Authorization: Bearer <token>` first, then `X-API-Key`. */
export function credentialOf(request: FastifyRequest): string | null {
  const authorization = request.headers.authorization;
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) throw new AppError('unauthorized', 'The Authorization header must be "Bearer <token>"');
    return match[1];
  }
  const apiKey = request.headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey !== '') return apiKey;
  if (Array.isArray(apiKey)) throw new AppError('unauthorized', 'Send one X-API-Key header');
  return null;
}

const UNKNOWN = 'The credential is unknown, revoked or expired';

// Every request with a credential runs one of these: compiled once (see db/prepared.ts).
const keyByHash = preparedQuery((db, _shape: null, hash: string) =>
  db
    .selectFrom('api_keys')
    .select(['id', 'account_id', 'role', 'site_ids', 'name', 'key_hash'])
    .where('key_hash', '=', hash)
    .where('revoked_at', 'is', null)
    .compile(),
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
      'site_users.first_comment_at',
      'site_users.marks_revision',
      'site_users.comments_only_they_see',
      'sites.account_id',
    ])
    .where('sessions.token_hash', '=', hash)
    .where('sessions.revoked_at', 'is', null)
    .where('sessions.expires_at', '>', now)
    .compile(),
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
      moderator: session.moderator === 1,
      hasCommented: session.first_comment_at !== null,
      marksRevision: session.marks_revision,
      hasCommentsOnlyTheySee: session.comments_only_they_see > 0,
    };
  }
  throw new AppError('unauthorized', UNKNOWN);
}

/** The identity a caller acts as on comments: a site user, an API key, or nobody (a guest). */
export function actorRef(caller: Caller): string | null {
  if (caller.kind === 'key') return caller.keyId;
  if (caller.kind === 'session') return caller.userId;
  return null;
}

export type AccountRole = 'owner' | 'admin' | 'moderator' | 'integration';
export interface Membership {
  accountId: string;
  role: AccountRole;
  siteIds: string[] | null;
}

/** What the caller may do in each account it reaches: one entry for a key, one per account for staff, none for sessions and the public. */
export function membershipsOf(caller: Caller): Membership[] {
  return caller.kind === 'key' ? [{ accountId: caller.accountId, role: caller.role, siteIds: caller.siteIds }] : [];
}

export function membershipFor(caller: Caller, accountId: string): Membership | null {
  return membershipsOf(caller).find((membership) => membership.accountId === accountId) ?? null;
}

/** What tenancy needs of a site (a `Site` is one). */
export interface SiteOwnership {
  id: string;
  accountId: string;
}

/** Whether the caller's credential reaches this site at all (tenancy). */
export function canAccessSite(caller: Caller, site: SiteOwnership): boolean {
  if (caller.kind === 'key') {
    return caller.accountId === site.accountId && (caller.siteIds === null || caller.siteIds.includes(site.id));
  }
  if (caller.kind === 'session') return caller.siteId === site.id;
  return false;
}

export function isModerator(caller: Caller, site: SiteOwnership): boolean {
  if (!canAccessSite(caller, site)) return false;
  if (caller.kind === 'key') return caller.role === 'admin' || caller.role === 'moderator';
  return caller.kind === 'session' && caller.moderator;
}

export function requireCredential(caller: Caller): asserts caller is KeyCaller | SessionCaller {
  if (caller.kind === 'public') throw new AppError('unauthorized', 'This endpoint needs an API key or a session');
}

export function requireAdminKey(caller: Caller): asserts caller is KeyCaller {
  requireCredential(caller);
  if (caller.kind !== 'key' || caller.role !== 'admin') {
    throw new AppError('forbidden', 'This endpoint needs an admin API key');
  }
}
