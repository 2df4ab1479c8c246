import type { Locale } from '../../i18n/locales.ts';
import type { Kysely } from 'kysely';
import { nowIso } from '../../clock.ts';
import type { Db } from '../../db/connect.ts';
import type { Database } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { withEvents } from '../../events/record.ts';
import { newId } from '../../ids.ts';
import { queueMail } from '../../mail/outbox.ts';
import type { SignInLimiter } from '../../ratelimits/sign-in-mails.ts';
import { findSite, type Site } from '../../sites/repository.ts';
import { normaliseEmail } from '../../staff/repository.ts';
import { EMAIL_PROVIDER, returnTarget, signInReader } from '../sign-in.ts';
import { isSignInCode, linkTokenHash, MAX_WRONG_CODES, newLinkToken, newSignInCode, SIGN_IN_CODE_LIFETIME_MS, signInCodeHash } from './codes.ts';

/**
 * Readers sign in only where the site lets them, the server can mail, and the site lists its
 * domains: a site without them is embeddable on any page, so a code typed there could hand a
 * session to a stranger's page (returnTarget says the same of links).
 */
export function requireEmailSignIn(db: Db, site: Site): void {
  if (!site.emailSignIn) throw new AppError('conflict', 'This site does not offer sign-in by email (its setting email_sign_in is off)');
  if (db.mail === null) throw new AppError('conflict', 'This server sends no mail (PARLEY_SMTP_URL is not set), so it cannot mail sign-in codes');
  if (site.domains.length === 0) {
    throw new AppError('conflict', "Readers sign in only on a site that lists its domains: add the site's domains (PATCH /api/sites/:id {domains}) first");
  }
}

/** What the mail carries: the code, and the link's token (both shown once, never stored in clear). */
export interface IssuedCode {
  code: string;
  linkToken: string;
}

export function signInLinkUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/v1/auth/email/link?token=${token}`;
}

/**
 * A new code and link for the address on the site, in one transaction with its mail: older unused
 * ones of the address stop working (the newest mail is the one to use). The same work for every
 * address: there is no "known address" branch, as the code proves the address and the account
 * comes with the first sign-in.
 */
export async function issueSignInCode(db: Db, site: Site, email: string, returnTo: URL | null, language: Locale | null): Promise<IssuedCode> {
  const publicUrl = db.mail!.publicUrl;
  const code = newSignInCode();
  const linkToken = newLinkToken();
  const now = nowIso();
  const id = newId('sic');
  await withEvents(db, async (trx) => {
    // Spent, superseded and expired codes are of no more use: each new one clears them, on every site.
    await trx.deleteFrom('sign_in_codes').where('expires_at', '<', now).execute();
    await trx.updateTable('sign_in_codes').set({ expires_at: now }).where('site_id', '=', site.id).where('email', '=', email).where('used_at', 'is', null).where('expires_at', '>', now).execute();
    await trx
      .insertInto('sign_in_codes')
      .values({
        id,
        site_id: site.id,
        email,
        code_hash: signInCodeHash({ id, siteId: site.id, email }, code),
        link_token_hash: linkTokenHash(linkToken),
        return_to: returnTo?.href ?? null,
        failed_attempts: 0,
        expires_at: new Date(Date.parse(now) + SIGN_IN_CODE_LIFETIME_MS).toISOString(),
        used_at: null,
        created_at: now,
      })
      .execute();
    // The mail speaks the language of the request (the widget's), kept in its row until it is sent.
    const data = { code, url: signInLinkUrl(publicUrl, linkToken), minutes: SIGN_IN_CODE_LIFETIME_MS / 60_000, language };
    await queueMail(trx, { kind: 'sign_in', cause: id, recipient: email, siteId: site.id, data });
  });
  return { code, linkToken };
}

export interface CodeRequest {
  email: string;
  returnTo?: string;
  /** The asking client's key (clientKey): its limits. */
  client: string;
  /** The language the code is asked in: the mail speaks it. */
  language: Locale | null;
}

/** POST /v1/auth/email: checks what it can before counting, then counts, then mails. */
export async function requestSignInCode(db: Db, limiter: SignInLimiter | null, publicUrl: string, site: Site, request: CodeRequest) {
  requireEmailSignIn(db, site);
  const returnTo = request.returnTo === undefined ? null : returnTarget(site, publicUrl, request.returnTo, 'body/return_to');
  const email = normaliseEmail(request.email);
  await limiter?.mail(site.id, email, request.client);
  await issueSignInCode(db, site, email, returnTo, request.language);
  return { sent: true as const, expires_in: SIGN_IN_CODE_LIFETIME_MS / 1000 };
}

const WRONG_CODE = 'This code is wrong, used or expired: check the last mail, or ask for a new code';
const ENDED_CODE = `${MAX_WRONG_CODES} wrong codes were typed for this address: that code no longer works; ask for a new code`;

function refused(detail: string, reason: 'wrong_code' | 'too_many_attempts'): AppError {
  return new AppError('unauthorized', detail, undefined, { reason });
}

/** The address's newest code that is neither used nor expired (superseded ones were expired when the next was mailed). */
function liveCode(db: Kysely<Database>, siteId: string, email: string, now: string) {
  return db
    .selectFrom('sign_in_codes')
    .select(['id', 'code_hash', 'failed_attempts'])
    .where('site_id', '=', siteId)
    .where('email', '=', email)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * Spends a live code, by its code or its link, whichever comes first: once. `reserved`: a right
 * code gives back the attempt it reserved (its fifth try may be the right one); a link reserved
 * none, and works only while the code has tries left. Whether this call spent it.
 */
async function spend(db: Kysely<Database>, id: string, now: string, reserved: boolean): Promise<boolean> {
  const done = await db
    .updateTable('sign_in_codes')
    .set((eb) => ({ used_at: now, failed_attempts: reserved ? eb('failed_attempts', '-', 1) : eb.ref('failed_attempts') }))
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .where('failed_attempts', reserved ? '<=' : '<', MAX_WRONG_CODES)
    .executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

export interface CodeEntry {
  email: string;
  code: string;
  name?: string;
  client: string;
  /** The language the reader signs in from: their mention mails speak it. */
  language: Locale | null;
}

/**
 * POST /v1/auth/email/verify. Each try first reserves one of the code's attempts (an atomic
 * increment that fails once MAX_WRONG_CODES are used), then compares: so however many guesses come
 * at once, no more than that many are ever compared. A right code gives its attempt back and is
 * spent; a wrong one keeps it, and is all that is written. One answer for a wrong, used, expired or
 * never mailed code; only the end of a code after its last wrong try says so, for the reader to ask
 * for a new one.
 */
export async function verifySignInCode(db: Db, limiter: SignInLimiter | null, site: Site, entry: CodeEntry) {
  requireEmailSignIn(db, site);
  const attempt = await limiter?.attempt(entry.client);
  const email = normaliseEmail(entry.email);
  const code = entry.code.replace(/[\s-]/g, '');
  const now = nowIso();
  const row = await liveCode(db.kysely, site.id, email, now);
  if (!row) throw refused(WRONG_CODE, 'wrong_code');
  if (row.failed_attempts >= MAX_WRONG_CODES) throw refused(ENDED_CODE, 'too_many_attempts');
  const reserved = await db.kysely
    .updateTable('sign_in_codes')
    .set((eb) => ({ failed_attempts: eb('failed_attempts', '+', 1) }))
    .where('id', '=', row.id)
    .where('used_at', 'is', null)
    .where('failed_attempts', '<', MAX_WRONG_CODES)
    .returning('failed_attempts')
    .executeTakeFirst();
  if (!reserved) throw refused(WRONG_CODE, 'wrong_code');
  if (!isSignInCode(row.code_hash, { id: row.id, siteId: site.id, email }, code)) {
    throw reserved.failed_attempts >= MAX_WRONG_CODES ? refused(ENDED_CODE, 'too_many_attempts') : refused(WRONG_CODE, 'wrong_code');
  }
  if (!(await spend(db.kysely, row.id, now, true))) throw refused(WRONG_CODE, 'wrong_code');
  await attempt?.right();
  return signInReader(db, site, { provider: EMAIL_PROVIDER, subject: email, email, emailVerified: true, name: entry.name ?? null, pictureUrl: null }, entry.language);
}

const UNUSABLE_LINK = 'This sign-in link is unknown, used or expired: ask for a new code';

/** A link that still works: its row, its site (sign-in still on there) and where it goes back to (checked again: the site's domains may have changed). */
export async function pendingLink(db: Db, token: string) {
  const row = token.startsWith('sil_')
    ? await db.kysely
        .selectFrom('sign_in_codes')
        .select(['id', 'site_id', 'email', 'return_to', 'failed_attempts'])
        .where('link_token_hash', '=', linkTokenHash(token))
        .where('used_at', 'is', null)
        .where('expires_at', '>', nowIso())
        .executeTakeFirst()
    : undefined;
  const site = row && row.failed_attempts < MAX_WRONG_CODES ? await findSite(db.kysely, row.site_id) : undefined;
  if (!row || !site) throw new AppError('not_found', UNUSABLE_LINK);
  requireEmailSignIn(db, site);
  const returnTo = row.return_to === null ? null : returnTarget(site, db.mail!.publicUrl, row.return_to, 'return_to');
  return { row, site, returnTo };
}

/**
 * The link's button: spends the link (and its code) and signs in; the reader goes back to the page
 * they asked from with the session in the URL's fragment, which browsers never send to a server.
 * Null when the link has no page to go back to: it is then not spent (the code still works).
 */
export async function signInByLink(db: Db, token: string, language: Locale | null): Promise<URL | null> {
  const link = await pendingLink(db, token);
  if (link.returnTo === null) return null;
  if (!(await spend(db.kysely, link.row.id, nowIso(), false))) throw new AppError('not_found', UNUSABLE_LINK);
  const email = link.row.email;
  const session = await signInReader(db, link.site, { provider: EMAIL_PROVIDER, subject: email, email, emailVerified: true, name: null, pictureUrl: null }, language);
  const target = new URL(link.returnTo);
  target.hash = `parley_session=${session.token}`;
  return target;
}
