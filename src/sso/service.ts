import type { Locale } from '../i18n/locales.ts';
import { audited, recordAudit, type Actor } from '../audit/audit.ts';
import type { Kysely } from 'kysely';
import type { Db } from '../db/connect.ts';
import type { Database } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { newId, randomBase62 } from '../ids.ts';
import { cleanText, MAX_AUTHOR_NAME, NAME_PATTERN } from '../comments/text.ts';
import { EMAIL_PATTERN } from '../mail/schemas.ts';
import { startSession } from '../sessions/service.ts';
import { findSite, type Site } from '../sites/repository.ts';
import { nowIso } from '../clock.ts';
import { readToken, TokenError } from './jwt.ts';

/** Active secrets a site may hold at once: enough to rotate (add the new, deploy, revoke the old). */
export const MAX_SECRETS = 3;
/** A token may live at most this long (exp - iat), and clocks may differ by this much. */
export const MAX_LIFETIME_SECONDS = 15 * 60;
export const CLOCK_TOLERANCE_SECONDS = 60;
export const AUDIENCE = 'parley';

// A token's claims meet the rules the request schemas set for names and addresses (POST /v1/sessions, POST /v1/comments).
const NAME_SHOWN_AS_WRITTEN = new RegExp(NAME_PATTERN, 'u');
const ONE_ADDRESS = new RegExp(EMAIL_PATTERN, 'u');
const MAX_EMAIL = 254;

export async function createSecret(db: Kysely<Database>, site: Site, actor: Actor) {
  return db.transaction().execute(async (trx) => {
    const held = await trx.selectFrom('sso_secrets').select('id').where('site_id', '=', site.id).execute();
    if (held.length >= MAX_SECRETS) throw new AppError('conflict', `A site holds at most ${MAX_SECRETS} SSO secrets; delete one first`);
    const row = { id: newId('sso'), site_id: site.id, secret: `ssk_${randomBase62(48)}`, created_at: nowIso() };
    await trx.insertInto('sso_secrets').values(row).execute();
    await recordAudit(trx, { accountId: site.accountId, actor, action: 'sso_secret.created', target: row.id, data: { site_id: site.id } });
    return { id: row.id, secret: row.secret, created_at: row.created_at };
  });
}

export async function listSecrets(db: Kysely<Database>, site: Site) {
  const rows = await db.selectFrom('sso_secrets').select(['id', 'created_at']).where('site_id', '=', site.id).orderBy('created_at').orderBy('id').execute();
  return { secrets: rows };
}

export async function deleteSecret(db: Kysely<Database>, site: Site, secretId: string, actor: Actor) {
  const row = await db.selectFrom('sso_secrets').select(['id', 'created_at']).where('site_id', '=', site.id).where('id', '=', secretId).executeTakeFirst();
  if (!row) throw new AppError('not_found', `No SSO secret ${secretId}`);
  const entry = { accountId: site.accountId, actor, action: 'sso_secret.deleted', target: secretId, data: { site_id: site.id } };
  await audited(db, entry, (trx) => trx.deleteFrom('sso_secrets').where('id', '=', secretId).execute());
  return row;
}

function refused(reason: string, detail: string, now: Date): AppError {
  return new AppError('unauthorized', detail, undefined, { reason, server_time: now.toISOString() });
}

function stringClaim(payload: Record<string, unknown>, claim: string, required: boolean): string | null {
  const value = payload[claim];
  if (value === undefined || value === null) {
    if (required) throw new TokenError('missing_claim', `The token has no ${claim} claim`);
    return null;
  }
  if (typeof value !== 'string' || value === '') throw new TokenError('invalid_claim', `The token's ${claim} claim must be a non-empty string`);
  return value;
}

function secondsClaim(payload: Record<string, unknown>, claim: string): number {
  const value = payload[claim];
  if (value === undefined) throw new TokenError('missing_claim', `The token has no ${claim} claim`);
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new TokenError('invalid_claim', `The token's ${claim} claim must be a number of seconds`);
  // Seconds stay below 10^11 until the year 5138; milliseconds have been above it since 1973.
  if (value > 1e11) throw new TokenError('iat_in_milliseconds', `The token's ${claim} claim is in milliseconds; JWT times are seconds since 1970 (Math.floor(Date.now() / 1000))`);
  return value;
}

/** The time checks, in the order a site developer would fix them. */
function checkTimes(payload: Record<string, unknown>, now: number): { iat: number; exp: number } {
  const iat = secondsClaim(payload, 'iat');
  const exp = secondsClaim(payload, 'exp');
  if (exp - iat > MAX_LIFETIME_SECONDS) throw new TokenError('lifetime_too_long', `exp is ${exp - iat} s after iat; at most ${MAX_LIFETIME_SECONDS} s`);
  if (now > exp + CLOCK_TOLERANCE_SECONDS) throw new TokenError('expired', `The token expired at ${new Date(exp * 1000).toISOString()}`);
  const nbf = payload.nbf === undefined ? iat : secondsClaim(payload, 'nbf');
  if (Math.max(iat, nbf) > now + CLOCK_TOLERANCE_SECONDS) {
    throw new TokenError('not_yet_valid', `The token is not valid before ${new Date(Math.max(iat, nbf) * 1000).toISOString()}; is the signing server's clock ahead?`);
  }
  return { iat, exp };
}

/**
 * POST /v1/sso/exchange: a token the site's backend signed becomes a session, once. Every refusal
 * says why (`reason`) and carries the server's clock, so clock and unit mistakes are found at once.
 */
export async function exchangeToken(db: Db, token: string, language: Locale | null = null) {
  const now = new Date();
  try {
    const signed = readToken(token);
    const key = await db.kysely.selectFrom('sso_secrets').selectAll().where('id', '=', signed.kid).executeTakeFirst();
    if (!key) throw new TokenError('unknown_key', `No SSO secret ${signed.kid}: was it deleted, or is kid another secret's id?`);
    if (!(await signed.signedWith(key.secret))) throw new TokenError('bad_signature', `The signature does not match SSO secret ${signed.kid}`);
    const { payload } = signed;
    const iss = stringClaim(payload, 'iss', true);
    // A key of one site never signs for another, whatever the token says.
    if (iss !== key.site_id) throw new TokenError('wrong_issuer', `iss must be the id of the site that owns SSO secret ${signed.kid}`);
    const aud = payload.aud;
    if (aud === undefined) throw new TokenError('missing_claim', 'The token has no aud claim');
    if (aud !== AUDIENCE && !(Array.isArray(aud) && aud.includes(AUDIENCE))) throw new TokenError('wrong_audience', `aud must be "${AUDIENCE}"`);
    const sub = stringClaim(payload, 'sub', true)!;
    const jti = stringClaim(payload, 'jti', true)!;
    if (jti.length > 200) throw new TokenError('invalid_claim', 'jti must be at most 200 characters');
    const { iat, exp } = checkTimes(payload, Math.floor(now.getTime() / 1000));
    const rawName = stringClaim(payload, 'name', true)!;
    if (!NAME_SHOWN_AS_WRITTEN.test(rawName)) throw new TokenError('invalid_claim', 'name must not hold a bidirectional control or zero-width character');
    const avatarUrl = stringClaim(payload, 'avatar_url', false);
    if (avatarUrl !== null && !/^https?:\/\/\S{1,2040}$/.test(avatarUrl)) throw new TokenError('invalid_claim', 'avatar_url must be an http(s) URL');
    const email = stringClaim(payload, 'email', false);
    if (email !== null && (email.length > MAX_EMAIL || !ONE_ADDRESS.test(email))) {
      throw new TokenError('invalid_claim', `email must be one address (name@example.com), at most ${MAX_EMAIL} characters`);
    }
    const site = (await findSite(db.kysely, key.site_id))!;
    await useOnce(db.kysely, site.id, jti, exp, now);
    const moderator = site.ssoModerators && payload.moderator === true;
    const profile = {
      externalId: cleanText('token/sub', sub, 200),
      name: cleanText('token/name', rawName, MAX_AUTHOR_NAME),
      avatarUrl,
      email,
      issuedAt: iat,
      language,
    };
    return await startSession(db, site, profile, moderator, null);
  } catch (error) {
    if (error instanceof TokenError) throw refused(error.reason, error.message, now);
    throw error;
  }
}

/**
 * Records the token id as used; a second exchange of it, on any instance, is refused. Ids are kept
 * until their token would be refused as expired anyway, and the expired ones are cleared here.
 */
async function useOnce(db: Kysely<Database>, siteId: string, jti: string, exp: number, now: Date): Promise<void> {
  await db.deleteFrom('sso_used_tokens').where('expires_at', '<', now.toISOString()).execute();
  const keptUntil = new Date((exp + CLOCK_TOLERANCE_SECONDS) * 1000).toISOString();
  const inserted = await db
    .insertInto('sso_used_tokens')
    .values({ site_id: siteId, jti, expires_at: keptUntil })
    .onConflict((oc) => oc.columns(['site_id', 'jti']).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) throw new TokenError('replayed', 'This token (its jti) has already been exchanged; sign a new one for each page view');
}
