import { sql, type Expression, type Kysely, type RawBuilder, type SqlBool, type Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { recordEvent } from '../events/record.ts';
import { newId } from '../ids.ts';
import type { Site } from '../sites/repository.ts';
import { refreshListing } from '../comments/listing.ts';
import { nowIso } from '../clock.ts';
import { recordAuthorReset } from '../live/record.ts';
import { endSessions } from '../sessions/service.ts';

export const BAN_TYPES = ['ban', 'shadow_ban'] as const;
export type BanType = (typeof BAN_TYPES)[number];

/** SQL: a ban (its `expires_at` column named) in force at `now`: a timed ban stops at its expiry. */
export function inForce(expiresAt: 'expires_at' | 'b.expires_at', now: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${sql.ref(expiresAt)} is null or ${sql.ref(expiresAt)} > ${now})`;
}

/** SQL: whether the author has a ban of this type on the site in force at `now` (none for a null author: a guest). */
export function hasBan(type: BanType, siteId: string | Expression<string>, authorRef: string | null, now: string): RawBuilder<number | boolean> {
  return sql<number | boolean>`exists (select 1 from bans where site_id = ${siteId} and author_ref = ${authorRef} and ban_type = ${sql.lit(type)}
    and ${inForce('expires_at', now)})`;
}

/** SQL: whether the author is banned outright from the site at `now`. */
export function isBanned(siteId: string | Expression<string>, authorRef: string, now: string): RawBuilder<number | boolean> {
  return hasBan('ban', siteId, authorRef, now);
}

/** An author's comments on a site by state (author_counts): the spam checks' links and history steps read it. */
export interface AuthorRecord {
  published: number;
  pending: number;
  removed: number;
  spam: number;
}

export const NO_RECORD: AuthorRecord = { published: 0, pending: 0, removed: 0, spam: 0 };

type RecordColumns = Record<keyof AuthorRecord, number | string | null | undefined>;

/** The record from author_counts' columns (none when the author has no row yet). */
export const recordFrom = (row: RecordColumns | undefined): AuthorRecord =>
  row ? { published: Number(row.published ?? 0), pending: Number(row.pending ?? 0), removed: Number(row.removed ?? 0), spam: Number(row.spam ?? 0) } : NO_RECORD;

/** An author's record on a site alone (an edit's checks: its bans were checked on the way in). */
export async function authorRecord(db: Kysely<Database>, siteId: string, authorRef: string): Promise<AuthorRecord> {
  return recordFrom(await db.selectFrom('author_counts').select(['published', 'pending', 'removed', 'spam']).where('site_id', '=', siteId).where('author_ref', '=', authorRef).executeTakeFirst());
}

/** A banned user's writes are refused outright (403 banned). */
export async function assertNotBanned(db: Kysely<Database>, siteId: string, authorRef: string | null): Promise<void> {
  if (authorRef === null) return;
  const { banned } = await db.selectNoFrom(isBanned(siteId, authorRef, nowIso()).as('banned')).executeTakeFirstOrThrow();
  if (Number(banned) === 1) throw bannedError();
}

export function bannedError(): AppError {
  return new AppError('banned', 'You are banned from commenting on this site');
}

async function userPayload(db: Kysely<Database>, authorRef: string) {
  const user = await db.selectFrom('site_users').selectAll().where('id', '=', authorRef).executeTakeFirst();
  if (user) return { id: user.id, external_id: user.external_id, name: user.name, avatar_url: user.avatar_url };
  const key = await db.selectFrom('api_keys').select(['id', 'name']).where('id', '=', authorRef).executeTakeFirst();
  return { id: authorRef, external_id: null, name: key?.name ?? null, avatar_url: null };
}

/**
 * Bans an author on a site and emits user.banned. A shadow ban also hides every comment of theirs,
 * past (here) and future (at creation). Returns null when that ban is already in force. An outright
 * ban may end at `expiresAt`; an expired one gives way to the new one.
 */
export async function banAuthor(
  trx: Transaction<Database>,
  site: Site,
  authorRef: string,
  type: BanType,
  reason: string | null,
  bannedBy: string,
  expiresAt: string | null = null,
) {
  const now = nowIso();
  const id = newId('ban');
  await trx.deleteFrom('bans').where('site_id', '=', site.id).where('author_ref', '=', authorRef).where('ban_type', '=', type).where('expires_at', '<=', now).execute();
  const inserted = await trx
    .insertInto('bans')
    .values({ id, site_id: site.id, author_ref: authorRef, ban_type: type, reason, created_by: bannedBy, created_at: now, expires_at: expiresAt })
    .onConflict((oc) => oc.columns(['site_id', 'author_ref', 'ban_type']).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return null;
  // The sessions signed in before an outright ban end with it.
  if (type === 'ban') await endSessions(trx, { siteId: site.id, userId: authorRef });
  if (type === 'shadow_ban') {
    await recordAuthorReset(trx, site.id, authorRef, true);
    await trx
      .updateTable('comments')
      .set({ moderation_status: 'shadow_banned', updated_at: now })
      .where('site_id', '=', site.id)
      .where('author_ref', '=', authorRef)
      .where('status', '=', 'published')
      .where('moderation_status', 'is', null)
      .execute();
    await refreshAuthorsThreads(trx, site.id, authorRef);
  }
  const user = await userPayload(trx, authorRef);
  await recordEvent(trx, { accountId: site.accountId, siteId: site.id, type: 'user.banned', data: { user, ban_type: type, reason } });
  return { id, site_id: site.id, user_id: authorRef, ban_type: type, reason, created_at: now, expires_at: expiresAt };
}

/** The author's shadow ban on the site, if any. */
export async function shadowBanOf(db: Kysely<Database>, siteId: string, authorRef: string) {
  return db.selectFrom('bans').select(['id', 'reason']).where('site_id', '=', siteId).where('author_ref', '=', authorRef).where('ban_type', '=', 'shadow_ban').executeTakeFirst();
}

/** Lifts a shadow ban: the author's hidden comments are public again. */
export async function liftShadowBan(trx: Transaction<Database>, siteId: string, authorRef: string): Promise<boolean> {
  const removed = await trx
    .deleteFrom('bans')
    .where('site_id', '=', siteId)
    .where('author_ref', '=', authorRef)
    .where('ban_type', '=', 'shadow_ban')
    .executeTakeFirst();
  await recordAuthorReset(trx, siteId, authorRef, false);
  await trx
    .updateTable('comments')
    .set({ moderation_status: null, updated_at: nowIso() })
    .where('site_id', '=', siteId)
    .where('author_ref', '=', authorRef)
    .where('moderation_status', '=', 'shadow_banned')
    .execute();
  await refreshAuthorsThreads(trx, siteId, authorRef);
  return Number(removed.numDeletedRows) > 0;
}

/** The lists an author's comments appear in, after their visibility changed all at once. */
async function refreshAuthorsThreads(trx: Transaction<Database>, siteId: string, authorRef: string): Promise<void> {
  const roots = await trx.selectFrom('comments').select('root_id').distinct().where('site_id', '=', siteId).where('author_ref', '=', authorRef).execute();
  await refreshListing(trx, roots.map((r) => r.root_id));
}
