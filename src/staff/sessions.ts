import type { Kysely } from 'kysely';
import type { StaffCaller } from '../auth/caller.ts';
import { hashSecret, sameSecret } from '../auth/secrets.ts';
import { nowIso } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { newId, randomBase62 } from '../ids.ts';
import { membershipsOfStaff, type StaffRow } from './repository.ts';

/** A staff sign-in lasts 14 days; signing out, a password change or a reset ends it sooner. */
export const STAFF_SESSION_LIFETIME_MS = 14 * 24 * 3600 * 1000;

export interface OpenedSession {
  /** The cookie's value: shown to the browser, never stored (only its hash is). */
  token: string;
  id: string;
  csrfSecret: string;
  createdAt: string;
  expiresAt: string;
}

export async function openStaffSession(db: Kysely<Database>, staff: StaffRow, client: { ip: string; userAgent: string | null }): Promise<OpenedSession> {
  const token = `stfs_${randomBase62(43)}`;
  const now = new Date();
  const session = {
    token,
    id: newId('sts'),
    csrfSecret: randomBase62(32),
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + STAFF_SESSION_LIFETIME_MS).toISOString(),
  };
  await db
    .insertInto('staff_sessions')
    .values({
      id: session.id,
      token_hash: hashSecret(token),
      staff_id: staff.id,
      csrf_secret: session.csrfSecret,
      ip: client.ip,
      user_agent: client.userAgent?.slice(0, 500) ?? null,
      created_at: session.createdAt,
      expires_at: session.expiresAt,
      revoked_at: null,
    })
    .execute();
  return session;
}

/** The staff caller of a cookie's token with its session's CSRF secret, or null when the session is unknown, ended or expired. */
export async function staffCallerOfToken(db: Kysely<Database>, token: string, ip: string): Promise<{ caller: StaffCaller; csrfSecret: string } | null> {
  const hash = hashSecret(token);
  const row = await db
    .selectFrom('staff_sessions')
    .innerJoin('staff', 'staff.id', 'staff_sessions.staff_id')
    .select(['staff_sessions.id', 'staff_sessions.token_hash', 'staff_sessions.csrf_secret', 'staff.id as staff_id', 'staff.name', 'staff.email'])
    .where('staff_sessions.token_hash', '=', hash)
    .where('staff_sessions.revoked_at', 'is', null)
    .where('staff_sessions.expires_at', '>', nowIso())
    .executeTakeFirst();
  if (!row || !sameSecret(row.token_hash, hash)) return null;
  const memberships = await membershipsOfStaff(db, row.staff_id);
  return {
    caller: { kind: 'staff', ip, staffId: row.staff_id, staffSessionId: row.id, name: row.name, email: row.email, memberships },
    csrfSecret: row.csrf_secret,
  };
}

function sessionView(row: { id: string; ip: string; user_agent: string | null; created_at: string; expires_at: string; revoked_at: string | null }, currentId: string) {
  return {
    id: row.id,
    ip: row.ip,
    user_agent: row.user_agent,
    created_at: row.created_at,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
    current: row.id === currentId,
  };
}

const SESSION_COLUMNS = ['id', 'ip', 'user_agent', 'created_at', 'expires_at', 'revoked_at'] as const;

/** The person's sign-ins that are still in force, newest first. */
export async function listStaffSessions(db: Kysely<Database>, caller: StaffCaller) {
  const rows = await db
    .selectFrom('staff_sessions')
    .select(SESSION_COLUMNS)
    .where('staff_id', '=', caller.staffId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', nowIso())
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map((row) => sessionView(row, caller.staffSessionId));
}

/** Ends one of the person's own sessions (idempotent); other people's are 404. */
export async function revokeStaffSession(db: Kysely<Database>, caller: StaffCaller, sessionId: string) {
  const row = await db.selectFrom('staff_sessions').select(SESSION_COLUMNS).where('id', '=', sessionId).where('staff_id', '=', caller.staffId).executeTakeFirst();
  if (!row) throw new AppError('not_found', `No session ${sessionId}`);
  if (row.revoked_at === null) {
    row.revoked_at = nowIso();
    await db.updateTable('staff_sessions').set({ revoked_at: row.revoked_at }).where('id', '=', sessionId).execute();
  }
  return sessionView(row, caller.staffSessionId);
}

/** Ends every session of a person but `keepId` (after a password change or reset); returns how many. */
export async function endSessionsOf(db: Kysely<Database>, staffId: string, keepId: string | null): Promise<number> {
  let query = db.updateTable('staff_sessions').set({ revoked_at: nowIso() }).where('staff_id', '=', staffId).where('revoked_at', 'is', null);
  if (keepId !== null) query = query.where('id', '!=', keepId);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}
