import { requireCredential, type Caller } from '../auth/caller.ts';
import { hashSecret, newSessionToken } from '../auth/secrets.ts';
import type { Db } from '../db/connect.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import { cleanText, MAX_AUTHOR_NAME } from '../comments/text.ts';
import { findSiteFor } from '../sites/repository.ts';
import { nowIso } from '../clock.ts';

export const SESSION_LIFETIME_MS = 30 * 24 * 3600 * 1000;

export interface SessionRequest {
  site_id: string;
  user: { id: string; name: string; avatar_url?: string | null; moderator?: boolean };
}

/**
 * A site's backend (holding an API key) signs one of its users in for the widget. The user is
 * created on first sight and their name and avatar refreshed on every later session.
 */
export async function createSession(db: Db, caller: Caller, input: SessionRequest) {
  requireCredential(caller);
  if (caller.kind !== 'key') throw new AppError('forbidden', 'Sessions are minted with an API key');
  const site = await findSiteFor(db.kysely, caller, input.site_id);
  const moderator = input.user.moderator === true;
  if (moderator && caller.role === 'integration') {
    throw new AppError('forbidden', 'Minting a moderator session needs an admin or moderator key');
  }
  const name = cleanText('body/user/name', input.user.name, MAX_AUTHOR_NAME);
  const externalId = cleanText('body/user/id', input.user.id, 200);
  const avatarUrl = input.user.avatar_url ?? null;
  const now = new Date();
  const token = newSessionToken();
  const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS).toISOString();
  const user = await db.kysely.transaction().execute(async (trx) => {
    await trx
      .insertInto('site_users')
      .values({ id: newId('usr'), site_id: site.id, external_id: externalId, name, avatar_url: avatarUrl, first_comment_at: null, created_at: now.toISOString() })
      .onConflict((oc) => oc.columns(['site_id', 'external_id']).doUpdateSet({ name, avatar_url: avatarUrl }))
      .execute();
    const row = await trx.selectFrom('site_users').selectAll().where('site_id', '=', site.id).where('external_id', '=', externalId).executeTakeFirstOrThrow();
    await trx
      .insertInto('sessions')
      .values({
        id: newId('sess'),
        token_hash: hashSecret(token),
        site_id: site.id,
        user_id: row.id,
        moderator: moderator ? 1 : 0,
        expires_at: expiresAt,
        revoked_at: null,
        created_at: now.toISOString(),
      })
      .execute();
    return row;
  });
  return {
    token,
    expires_at: expiresAt,
    user: { id: user.id, external_id: user.external_id, name: user.name, avatar_url: user.avatar_url, moderator },
  };
}

export async function revokeCurrentSession(db: Db, caller: Caller): Promise<void> {
  requireCredential(caller);
  if (caller.kind !== 'session') throw new AppError('forbidden', 'Only a session token can revoke itself');
  await db.kysely.updateTable('sessions').set({ revoked_at: nowIso() }).where('id', '=', caller.sessionId).execute();
}
