import { createHmac } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { SessionCaller } from '../auth/caller.ts';
import { sameSecret } from '../auth/secrets.ts';
import { nowIso } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import { unreadCount, type SiteReader } from '../notifications/unread.ts';

/** What a stream key looks like: the session's id, a dot, and its signature. */
export const STREAM_KEY_PATTERN = '^sess_[0-9a-z]{26}\\.[A-Za-z0-9_-]{43}$';

/** The session whose bell a stream carries. */
export interface BellSession extends SiteReader {
  sessionId: string;
}

/**
 * An EventSource sends no Authorization header, and a session token in a URL ends up in access
 * logs: the stream is given this instead. It names the session and is signed with the token's hash,
 * which only the database and the holder of the token can compute, so it reveals nothing to sign in
 * with, and a session ended is a key ended.
 */
function streamKey(sessionId: string, tokenHash: string): string {
  return `${sessionId}.${createHmac('sha256', tokenHash).update('notifications-stream').digest('base64url')}`;
}

/** These sessions of these sites that are neither revoked nor expired, by id. */
export async function liveSessions(db: Kysely<Database>, sessions: { sessionId: string; siteId: string }[]) {
  if (sessions.length === 0) return new Map<string, { id: string; token_hash: string; site_id: string; user_id: string }>();
  const rows = await db
    .selectFrom('sessions')
    .select(['id', 'token_hash', 'site_id', 'user_id'])
    .where('id', 'in', sessions.map((session) => session.sessionId))
    .where('site_id', 'in', [...new Set(sessions.map((session) => session.siteId))])
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', nowIso())
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
}

/** A reader session's bell for GET /v1/widget: its unread count and the key its stream opens with. */
export async function bellOf(db: Kysely<Database>, caller: SessionCaller): Promise<{ unread: number; stream_key: string } | null> {
  const session = (await liveSessions(db, [caller])).get(caller.sessionId);
  if (!session) return null;
  return { unread: await unreadCount(db, caller), stream_key: streamKey(session.id, session.token_hash) };
}

/** The live session of this site a stream key names, or null for a key that is wrong, another site's, or of an ended session. */
export async function sessionOfStreamKey(db: Kysely<Database>, siteId: string, key: string): Promise<BellSession | null> {
  const sessionId = key.slice(0, key.indexOf('.'));
  const session = (await liveSessions(db, [{ sessionId, siteId }])).get(sessionId);
  if (!session || !sameSecret(streamKey(session.id, session.token_hash), key)) return null;
  return { sessionId, siteId, userId: session.user_id };
}
