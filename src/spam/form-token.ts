import { createHmac } from 'node:crypto';
import type { Kysely } from 'kysely';
import { sameSecret } from '../auth/secrets.ts';
import type { Database } from '../db/schema.ts';
import { randomBase62 } from '../ids.ts';
import type { Site } from '../sites/repository.ts';

/** How long a form token is good for: a page left open for a day still posts. */
export const FORM_TOKEN_LIFETIME_MS = 24 * 3_600_000;
/** Clocks of two instances may differ by this much. */
const CLOCK_TOLERANCE_MS = 5_000;

/**
 * The site's signing secret for form tokens and proof-of-work challenges, made on first use. Two
 * instances making one at once both read back the one that was stored first.
 */
export async function formSecretOf(db: Kysely<Database>, site: Site): Promise<string> {
  if (site.formSecret !== null) return site.formSecret;
  await db.updateTable('sites').set({ form_secret: randomBase62(43) }).where('id', '=', site.id).where('form_secret', 'is', null).execute();
  const row = await db.selectFrom('sites').select('form_secret').where('id', '=', site.id).executeTakeFirstOrThrow();
  return row.form_secret!;
}

function signature(secret: string, siteId: string, issuedAt: number): string {
  return createHmac('sha256', secret).update(`form:${siteId}:${issuedAt}`).digest('base64url');
}

/**
 * `ft1.<issued at, ms since the epoch>.<HMAC>`: when the widget was given its form, signed for the
 * site, so a comment sent with it tells how long it was in the making. Not bound to an address (a
 * phone changes address between loading a page and posting) nor used once (a reader posts several
 * comments from one page); floods from one token are what the velocity and duplicate checks hold.
 */
export function issueFormToken(secret: string, siteId: string, now = Date.now()): string {
  return `ft1.${now}.${signature(secret, siteId, now)}`;
}

export type FormTokenCheck = { ok: true; ageMs: number } | { ok: false; problem: 'missing' | 'invalid' | 'expired' };

export function checkFormToken(secret: string | null, siteId: string, token: string | undefined, now = Date.now()): FormTokenCheck {
  if (token === undefined || token === '') return { ok: false, problem: 'missing' };
  const match = /^ft1\.(\d{1,15})\.([\w-]{43})$/.exec(token);
  if (!match || secret === null) return { ok: false, problem: 'invalid' };
  const issuedAt = Number(match[1]);
  if (!sameSecret(match[2], signature(secret, siteId, issuedAt)) || issuedAt > now + CLOCK_TOLERANCE_MS) return { ok: false, problem: 'invalid' };
  const ageMs = Math.max(0, now - issuedAt);
  return ageMs > FORM_TOKEN_LIFETIME_MS ? { ok: false, problem: 'expired' } : { ok: true, ageMs };
}
