import type { Kysely, Selectable } from 'kysely';
import { canAccessSite, membershipsOf, requireAccountAdmin, requireSiteAdmin, type Caller } from '../auth/caller.ts';
import { preparedQuery } from '../db/prepared.ts';
import type { Database, SiteTable } from '../db/schema.ts';
import { AppError } from '../errors.ts';

export const MODERATION_MODES = ['none', 'guests', 'all'] as const;
export type ModerationMode = (typeof MODERATION_MODES)[number];
export const DEFAULT_REACTIONS = ['funny', 'interesting', 'insightful'];

/** A site row with its JSON columns decoded. */
export interface Site {
  id: string;
  accountId: string;
  name: string;
  domains: string[];
  moderationMode: ModerationMode;
  allowGuests: boolean;
  reactions: string[];
  webhookUrl: string | null;
  webhookSecret: string | null;
  webhookEvents: string[];
  createdAt: string;
}

export function toSite(row: Selectable<SiteTable>): Site {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    domains: JSON.parse(row.domains),
    moderationMode: row.moderation_mode as ModerationMode,
    allowGuests: row.allow_guests === 1,
    reactions: JSON.parse(row.reactions),
    webhookUrl: row.webhook_url,
    webhookSecret: row.webhook_secret,
    webhookEvents: JSON.parse(row.webhook_events),
    createdAt: row.created_at,
  };
}

const siteById = preparedQuery((db, _shape: null, siteId: string) => db.selectFrom('sites').selectAll().where('id', '=', siteId).compile());

export async function findSite(db: Kysely<Database>, siteId: string): Promise<Site | undefined> {
  const [row] = await siteById(db, null, siteId);
  return row && toSite(row);
}

/** The site, which anyone may name (public reads and guest comments): 404 when there is none. */
export async function siteOrNotFound(db: Kysely<Database>, siteId: string): Promise<Site> {
  const site = await findSite(db, siteId);
  if (!site) throw new AppError('not_found', `No site ${siteId}`);
  return site;
}

/** The site if the caller's credential reaches it; other tenants' sites do not exist (404). */
export async function findSiteFor(db: Kysely<Database>, caller: Caller, siteId: string): Promise<Site> {
  const site = await findSite(db, siteId);
  if (!site || !canAccessSite(caller, site)) {
    throw new AppError('not_found', `No site ${siteId}`);
  }
  return site;
}

/** A site the caller administers (an admin key, an owner or admin): 403 by role first, then 404, then 403 for a moderator of it. */
export async function findSiteToAdminister(db: Kysely<Database>, caller: Caller, siteId: string): Promise<Site> {
  requireAccountAdmin(caller);
  const site = await findSiteFor(db, caller, siteId);
  requireSiteAdmin(caller, site);
  return site;
}

export async function listSitesFor(db: Kysely<Database>, caller: Caller): Promise<Site[]> {
  const query = db.selectFrom('sites').selectAll().orderBy('created_at').orderBy('id');
  if (caller.kind === 'session') return (await query.where('id', '=', caller.siteId).execute()).map(toSite);
  const memberships = membershipsOf(caller);
  if (memberships.length === 0) return [];
  const rows = await query
    .where((eb) =>
      eb.or(
        memberships.map((m) =>
          m.siteIds === null
            ? eb('account_id', '=', m.accountId)
            : eb.and([eb('account_id', '=', m.accountId), eb('id', 'in', m.siteIds.length ? m.siteIds : [''])]),
        ),
      ),
    )
    .execute();
  return rows.map(toSite);
}
