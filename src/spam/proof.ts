import { createChallenge, verifySolution } from 'altcha-lib/v1';
import type { Challenge } from 'altcha-lib/v1/types';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { nowIso } from '../clock.ts';

/**
 * ALTCHA proof of work: find the number (0 to MAX_NUMBER) whose SHA-256 with the salt is the
 * challenge; about MAX_NUMBER / 2 hashes on average. The widget's solver awaits WebCrypto once per
 * number, some 16,000 a second on a desktop CPU slowed four times like a mid-range phone, so the
 * reader waits about 0.3 s (0.6 s at worst) after pressing Post, while a script posting thousands
 * pays that each time. widget/proof.browser.test.ts measures it; 20,000 put the slowest tenth of
 * solves past a second.
 */
export const PROOF_MAX_NUMBER = 10_000;
/** A challenge is good for an hour; the widget fetches a new one for a form left open longer. */
export const CHALLENGE_LIFETIME_MS = 3_600_000;

export function newChallenge(secret: string, now = Date.now()): Promise<Challenge> {
  return createChallenge({ hmacKey: secret, maxNumber: PROOF_MAX_NUMBER, expires: new Date(now + CHALLENGE_LIFETIME_MS) });
}

interface SolutionPayload {
  signature: string;
}

function decoded(payload: string): SolutionPayload | null {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(payload, 'base64').toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && typeof (parsed as SolutionPayload).signature === 'string' ? (parsed as SolutionPayload) : null;
  } catch {
    return null;
  }
}

/**
 * Whether `payload` (the base64 JSON the widget sends, as ALTCHA's own widget does) solves an
 * unexpired challenge of this site that no comment used before. Used ones are kept until their
 * challenge expires, and expired ones cleared here (one indexed delete).
 */
export async function acceptProof(trx: Kysely<Database>, siteId: string, secret: string | null, payload: string | undefined): Promise<boolean> {
  if (!payload || secret === null) return false;
  const solution = decoded(payload);
  if (solution === null || !(await verifySolution(payload, secret, true).catch(() => false))) return false;
  const now = nowIso();
  await trx.deleteFrom('spam_used_proofs').where('expires_at', '<', now).execute();
  const keptUntil = new Date(Date.now() + CHALLENGE_LIFETIME_MS).toISOString();
  const inserted = await trx
    .insertInto('spam_used_proofs')
    .values({ site_id: siteId, signature: solution.signature, expires_at: keptUntil })
    .onConflict((oc) => oc.columns(['site_id', 'signature']).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
}
