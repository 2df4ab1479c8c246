import type { Locale } from '../i18n/locales.ts';
import type { Kysely, Selectable } from 'kysely';
import { requireCredential, type Caller } from '../auth/caller.ts';
import { hashSecret, newSessionToken } from '../auth/secrets.ts';
import type { Db } from '../db/connect.ts';
import { toCount } from '../db/dialect.ts';
import type { Database, SiteUserTable } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import { cleanText, MAX_AUTHOR_NAME } from '../comments/text.ts';
import { findSiteFor, type Site } from '../sites/repository.ts';
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
  return startSession(db, site, { externalId, name, avatarUrl: input.user.avatar_url ?? null }, moderator, caller.keyId);
}

/** Who a session is for, as the site's backend (or its signed token) describes them. */
export interface SiteUserProfile {
  externalId: string;
  name: string;
  avatarUrl: string | null;
  email?: string | null;
  /** For a signed token: its `iat`. A profile from an older token than the one last applied is not applied. */
  issuedAt?: number;
  /** The language the reader signs in from (the widget's): their mention mails speak it. */
  language?: Locale | null;
}

/**
 * Creates the site's user on first sight (identity: the site and its own user id) and a session for
 * them. The name and avatar are refreshed on every later session, unless this profile comes from a
 * token older than the one that last set them.
 */
export async function startSession(db: Db, site: Site, profile: SiteUserProfile, moderator: boolean, keyId: string | null) {
  const { externalId, name, avatarUrl } = profile;
  const issuedAt = profile.issuedAt ?? null;
  const now = nowIso();
  return db.kysely.transaction().execute(async (trx) => {
    const fresh = {
      name,
      avatar_url: avatarUrl,
      ...(profile.email !== undefined && { email: profile.email }),
      ...(issuedAt !== null && { profile_issued_at: issuedAt }),
      ...(profile.language && { language: profile.language }),
    };
    await trx
      .insertInto('site_users')
      .values({ id: newId('usr'), site_id: site.id, external_id: externalId, first_comment_at: null, created_at: now, ...fresh })
      .onConflict((oc) => {
        const update = oc.columns(['site_id', 'external_id']).doUpdateSet(fresh);
        return issuedAt === null
          ? update
          : update.where((eb) => eb.or([eb('site_users.profile_issued_at', 'is', null), eb('site_users.profile_issued_at', '<=', issuedAt)]));
      })
      .execute();
    const user = await trx.selectFrom('site_users').selectAll().where('site_id', '=', site.id).where('external_id', '=', externalId).executeTakeFirstOrThrow();
    return openSession(trx, user, { moderator, keyId });
  });
}

/**
 * A new session for a site user, in the caller's transaction: the body `POST /v1/sessions` answers.
 * Signing in keeps an account its reader asked to delete (the grace period of `DELETE /v1/me`).
 */
export async function openSession(
  trx: Kysely<Database>,
  user: Pick<Selectable<SiteUserTable>, 'id' | 'site_id' | 'external_id' | 'name' | 'avatar_url' | 'erase_after'>,
  options: { moderator: boolean; keyId: string | null },
) {
  const now = new Date();
  const token = newSessionToken();
  const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS).toISOString();
  if (user.erase_after !== null) {
    // Erased meanwhile (the sweeper's transaction committed after the user was read): no session for a deleted account.
    const kept = await trx.updateTable('site_users').set({ erase_after: null }).where('id', '=', user.id).where('erased_at', 'is', null).executeTakeFirst();
    if (Number(kept.numUpdatedRows) === 0) throw new AppError('conflict', 'This account has just been deleted; sign in again to start a new one');
  }
  await trx
    .insertInto('sessions')
    .values({
      id: newId('sess'),
      token_hash: hashSecret(token),
      site_id: user.site_id,
      user_id: user.id,
      moderator: options.moderator ? 1 : 0,
      expires_at: expiresAt,
      revoked_at: null,
      created_at: now.toISOString(),
      key_id: options.keyId,
    })
    .execute();
  return {
    token,
    expires_at: expiresAt,
    user: { id: user.id, external_id: user.external_id, name: user.name, avatar_url: user.avatar_url, moderator: options.moderator },
  };
}

export async function revokeCurrentSession(db: Db, caller: Caller): Promise<void> {
  requireCredential(caller);
  if (caller.kind !== 'session') throw new AppError('forbidden', 'Only a session token can revoke itself');
  await db.kysely.updateTable('sessions').set({ revoked_at: nowIso() }).where('id', '=', caller.sessionId).execute();
}

/** The sessions to end: every one a key minted, or a site's, or one user's on a site. */
export type SessionScope = { keyId: string } | { siteId: string; userId?: string };

/**
 * Ends the live sessions of the scope at once, in the caller's transaction when it has one (a key's
 * revocation, a ban): the per-request credential lookup then finds them revoked. Returns how many.
 */
export async function endSessions(db: Kysely<Database>, scope: SessionScope): Promise<number> {
  const now = nowIso();
  let query = db.updateTable('sessions').set({ revoked_at: now }).where('revoked_at', 'is', null).where('expires_at', '>', now);
  if ('keyId' in scope) query = query.where('key_id', '=', scope.keyId);
  else {
    query = query.where('site_id', '=', scope.siteId);
    if (scope.userId !== undefined) query = query.where('user_id', '=', scope.userId);
  }
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

function sessionsOfSite(db: Kysely<Database>, siteId: string) {
  return db
    .selectFrom('sessions')
    .innerJoin('site_users', 'site_users.id', 'sessions.user_id')
    .where('sessions.site_id', '=', siteId);
}

const SESSION_COLUMNS = [
  'sessions.id',
  'sessions.user_id',
  'site_users.external_id',
  'site_users.name',
  'sessions.moderator',
  'sessions.key_id',
  'sessions.created_at',
  'sessions.expires_at',
  'sessions.revoked_at',
] as const;

type SessionRow = Awaited<ReturnType<typeof readSession>>;

function readSession(db: Kysely<Database>, siteId: string, sessionId: string) {
  return sessionsOfSite(db, siteId)
    .select(SESSION_COLUMNS)
    .where('sessions.id', '=', sessionId)
    .executeTakeFirst();
}

/** A session as the management API shows it: never its token, nor the token's hash. */
function sessionView(row: NonNullable<SessionRow>) {
  return {
    id: row.id,
    user: { id: row.user_id, external_id: row.external_id, name: row.name },
    moderator: row.moderator === 1,
    key_id: row.key_id,
    created_at: row.created_at,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
  };
}

export interface SessionFilter {
  userId?: string;
  page: number;
  limit: number;
}

/** The site's live sessions (neither revoked nor expired), newest first. */
export async function listSessions(db: Kysely<Database>, site: Site, filter: SessionFilter) {
  let live = sessionsOfSite(db, site.id).where('sessions.revoked_at', 'is', null).where('sessions.expires_at', '>', nowIso());
  if (filter.userId !== undefined) live = live.where('sessions.user_id', '=', filter.userId);
  const [rows, count] = await Promise.all([
    live
      .select(SESSION_COLUMNS)
      .orderBy('sessions.created_at', 'desc')
      .orderBy('sessions.id', 'desc')
      .limit(filter.limit)
      .offset((filter.page - 1) * filter.limit)
      .execute(),
    live.select((eb) => eb.fn.countAll().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { sessions: rows.map(sessionView), total: toCount(count.total as number), page: filter.page };
}

/** Ends one session of the site; ending it again answers the same. */
export async function revokeSession(db: Kysely<Database>, site: Site, sessionId: string) {
  const found = await readSession(db, site.id, sessionId);
  if (!found) throw new AppError('not_found', `No session ${sessionId}`);
  if (found.revoked_at === null) {
    found.revoked_at = nowIso();
    await db.updateTable('sessions').set({ revoked_at: found.revoked_at }).where('id', '=', sessionId).where('revoked_at', 'is', null).execute();
  }
  return sessionView(found);
}
