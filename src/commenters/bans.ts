import { actorOf, recordAudit } from '../audit/audit.ts';
import type { Caller } from '../auth/caller.ts';
import { nowIso } from '../clock.ts';
import type { Db } from '../db/connect.ts';
import { lockAuthor } from '../db/dialect.ts';
import { AppError, invalid } from '../errors.ts';
import { withEvents } from '../events/record.ts';
import { afterKey, decodeCursor, pageOf } from '../http/cursor.ts';
import { describeActors } from '../moderation/actors.ts';
import { banAuthor, inForce, liftShadowBan, type BanType } from '../moderation/bans.ts';
import { moderatorOf } from '../moderation/service.ts';
import type { Site } from '../sites/repository.ts';
import { siteUser } from './repository.ts';

const ORDER = 'bans:newest';

export interface NewBan {
  user_id: string;
  ban_type?: BanType;
  reason?: string | null;
  expires_at?: string | null;
}

function expiryOf(input: NewBan, type: BanType): string | null {
  if (input.expires_at === undefined || input.expires_at === null) return null;
  // A shadow ban hid the author's comments when it began; nothing would show them again at its end.
  if (type !== 'ban') throw invalid('body/expires_at', 'only an outright ban (ban_type "ban") can expire');
  const expiresAt = new Date(input.expires_at).toISOString();
  if (expiresAt <= nowIso()) throw invalid('body/expires_at', 'must be in the future');
  return expiresAt;
}

/** Bans a site user (user.banned); 409 when that ban is in force already. */
export async function createBan(db: Db, caller: Caller, site: Site, input: NewBan) {
  const type = input.ban_type ?? 'ban';
  const expiresAt = expiryOf(input, type);
  await siteUser(db, site, input.user_id);
  const ban = await withEvents(db, async (trx) => {
    await lockAuthor(db.dialect, trx, site.id, input.user_id);
    const made = await banAuthor(trx, site, input.user_id, type, input.reason ?? null, moderatorOf(caller).id, expiresAt);
    if (made) await recordAudit(trx, { accountId: site.accountId, actor: actorOf(caller), action: 'ban.created', target: made.id, data: { site_id: site.id, user_id: input.user_id, ban_type: type, expires_at: expiresAt } });
    return made;
  });
  if (!ban) throw new AppError('conflict', `User ${input.user_id} already has a ${type} on this site`);
  if (type === 'shadow_ban') db.changes.siteChanged(site.id);
  return ban;
}

export interface BanFilter {
  user_id?: string;
  active?: boolean;
  cursor?: string;
  limit?: number;
}

/** A site's bans, newest first, with whom they ban, who banned, and whether they are in force. */
export async function listBans(db: Db, site: Site, filter: BanFilter) {
  const limit = filter.limit ?? 20;
  const now = nowIso();
  let select = db.kysely
    .selectFrom('bans as b')
    .leftJoin('site_users as u', 'u.id', 'b.author_ref')
    .selectAll('b')
    .select('u.name as user_name')
    .where('b.site_id', '=', site.id);
  if (filter.user_id !== undefined) select = select.where('b.author_ref', '=', filter.user_id);
  if (filter.active === true) select = select.where(inForce('b.expires_at', now));
  if (filter.active === false) select = select.where('b.expires_at', '<=', now);
  if (filter.cursor !== undefined) select = select.where(afterKey(['b.created_at', 'b.id'], decodeCursor(filter.cursor, ORDER, ['string', 'string']), 'desc'));
  const rows = await select.orderBy('b.created_at', 'desc').orderBy('b.id', 'desc').limit(limit + 1).execute();
  const { items, next_cursor } = pageOf(rows, limit, (row) => [row.created_at, row.id], ORDER);
  const actors = await describeActors(db.kysely, items.map((row) => row.created_by));
  return {
    bans: items.map((row) => ({
      id: row.id,
      site_id: row.site_id,
      user_id: row.author_ref,
      user_name: row.user_name,
      ban_type: row.ban_type as BanType,
      reason: row.reason,
      created_by: actors(row.created_by),
      created_at: row.created_at,
      expires_at: row.expires_at,
      active: row.expires_at === null || row.expires_at > now,
    })),
    next_cursor,
  };
}

/** Lifts a ban: the user may write again; a lifted shadow ban shows their comments again. */
export async function liftBan(db: Db, caller: Caller, site: Site, banId: string) {
  const ban = await db.kysely.selectFrom('bans').selectAll().where('id', '=', banId).where('site_id', '=', site.id).executeTakeFirst();
  if (!ban) throw new AppError('not_found', `No ban ${banId} on this site`);
  await db.kysely.transaction().execute(async (trx) => {
    await lockAuthor(db.dialect, trx, site.id, ban.author_ref);
    if (ban.ban_type === 'shadow_ban') await liftShadowBan(trx, site.id, ban.author_ref);
    else await trx.deleteFrom('bans').where('id', '=', banId).execute();
    await recordAudit(trx, { accountId: site.accountId, actor: actorOf(caller), action: 'ban.lifted', target: banId, data: { site_id: site.id, user_id: ban.author_ref, ban_type: ban.ban_type } });
  });
  if (ban.ban_type === 'shadow_ban') db.changes.siteChanged(site.id);
  return {
    id: ban.id,
    site_id: ban.site_id,
    user_id: ban.author_ref,
    ban_type: ban.ban_type as BanType,
    reason: ban.reason,
    created_at: ban.created_at,
    expires_at: ban.expires_at,
  };
}
