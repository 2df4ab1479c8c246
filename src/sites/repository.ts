import type { Kysely, Selectable } from 'kysely';
import { canAccessSite, membershipsOf, type Caller } from '../auth/caller.ts';
import { requireCapability, requireSiteCapability, type Capability } from '../auth/management.ts';
import { authorLock, authorLockKey, type DialectName } from '../db/dialect.ts';
import { preparedQuery } from '../db/prepared.ts';
import type { Database, SiteTable } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { decodeSpamSettings, type SpamSettings } from '../spam/settings.ts';
import type { Formatting } from '../formatting/html.ts';
import type { Locale } from '../i18n/locales.ts';
import { decodeSiteStrings, type SiteStrings } from './strings.ts';

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
  /** Whether the widget streams new comments and counts to readers. */
  liveUpdates: boolean;
  /** Whether an SSO token's `moderator` claim makes its user a moderator. */
  ssoModerators: boolean;
  /** The spam pipeline's settings, defaults filled in (src/spam/settings.ts). */
  spam: SpamSettings;
  /** The settings' column as stored: only what was set for the site. */
  spamSettingsColumn: string;
  /** Signs form tokens and proof-of-work challenges (src/spam/form-secret.ts); null until first used. */
  formSecret: string | null;
  /** Whether readers may sign in with a code mailed to them (src/readers). */
  emailSignIn: boolean;
  /** Whether a reader's picture at their identity provider becomes their avatar; else the widget draws one. */
  providerAvatars: boolean;
  /** How comments are written and rendered (src/formatting). */
  formatting: Formatting;
  /** How long after writing it an author may edit a comment, in seconds; null: always. */
  editWindowSeconds: number | null;
  /** The widget's and mails' language when nothing else names one; null: English. */
  language: Locale | null;
  /** The site's own wording of messages (src/sites/strings.ts). */
  strings: SiteStrings;
  /** Where readers contest a decision: an https URL or a mailto: link (src/contests/contact.ts); null: none. */
  contact: string | null;
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
    liveUpdates: row.live_updates === 1,
    ssoModerators: row.sso_moderators === 1,
    spam: decodeSpamSettings(row.spam_settings),
    spamSettingsColumn: row.spam_settings,
    formSecret: row.form_secret,
    emailSignIn: row.email_sign_in === 1,
    providerAvatars: row.provider_avatars === 1,
    formatting: row.formatting as Formatting,
    editWindowSeconds: row.edit_window_seconds === null ? null : Number(row.edit_window_seconds),
    language: row.language as Locale | null,
    strings: decodeSiteStrings(row.strings),
    contact: row.contact,
  };
}

const siteById = preparedQuery((db, _shape: null, siteId: string) => db.selectFrom('sites').selectAll().where('id', '=', siteId).compile());

export async function findSite(db: Kysely<Database>, siteId: string): Promise<Site | undefined> {
  const [row] = await siteById(db, null, siteId);
  return row && toSite(row);
}

const siteLockingAuthor = preparedQuery((db, _shape: null, siteId: string, lockKey: string) =>
  db.selectFrom('sites').selectAll().select(authorLock(lockKey).as('author_locked')).where('id', '=', siteId).compile(),
);

/**
 * The site a new comment goes to, read with its author's lock (lockAuthor) taken in the same round
 * trip on PostgreSQL, where a comment's every statement before the one that locks its thread is a
 * round trip: the author's standing is read by the next statement, under the lock.
 */
export async function findSiteLockingAuthor(db: Kysely<Database>, dialect: DialectName, siteId: string, authorRef: string | null): Promise<Site | undefined> {
  if (dialect !== 'postgres' || authorRef === null) return findSite(db, siteId);
  const [row] = await siteLockingAuthor(db, null, siteId, authorLockKey(siteId, authorRef));
  return row && toSite(row);
}

/** The site, which anyone may name (public reads and guest comments): 404 when there is none. */
export async function siteOrNotFound(db: Kysely<Database>, siteId: string): Promise<Site> {
  return reachedSite(null, await findSite(db, siteId), siteId);
}

/** The site if the caller's credential reaches it; other tenants' sites do not exist (404). */
export async function findSiteFor(db: Kysely<Database>, caller: Caller, siteId: string): Promise<Site> {
  return reachedSite(caller, await findSite(db, siteId), siteId);
}

/** A site read for `caller` (null: the public, who may name any site), or 404 when it does not exist or their credential does not reach it. */
export function reachedSite(caller: Caller | null, site: Site | undefined, siteId: string): Site {
  if (!site || (caller !== null && !canAccessSite(caller, site))) throw new AppError('not_found', `No site ${siteId}`);
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

/**
 * The site for a management endpoint: 401/403 by the caller's role before any lookup, then 404 for
 * a site they do not reach and 403 for one they reach without the role (auth/management.ts).
 */
export async function managedSite(db: Kysely<Database>, caller: Caller, siteId: string, capability: Capability): Promise<Site> {
  requireCapability(caller, capability);
  const site = await findSite(db, siteId);
  if (!site) throw new AppError('not_found', `No site ${siteId}`);
  requireSiteCapability(caller, site, capability);
  return site;
}

/** Every site the caller may `capability` (401/403 when there is none by role), oldest first. */
export async function sitesManagedBy(db: Kysely<Database>, caller: Caller, capability: Capability): Promise<Site[]> {
  const memberships = requireCapability(caller, capability);
  const rows = await db
    .selectFrom('sites')
    .selectAll()
    .where((eb) =>
      eb.or(
        memberships.map((membership) =>
          membership.siteIds === null
            ? eb('account_id', '=', membership.accountId)
            : eb.and([eb('account_id', '=', membership.accountId), eb('id', 'in', membership.siteIds.length ? membership.siteIds : [''])]),
        ),
      ),
    )
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toSite);
}

/** Every site of every account, oldest first: for the operator at the server (`parley sites list`), never over HTTP. */
export async function listAllSites(db: Kysely<Database>) {
  return db.selectFrom('sites').select(['id', 'name', 'account_id', 'created_at']).orderBy('created_at').orderBy('id').execute();
}

/** The one account that owns all of `siteIds`; a site that does not exist is named. */
export async function accountOfSites(db: Kysely<Database>, siteIds: string[]): Promise<{ accountIds: string[]; missing: string[] }> {
  const rows = await db.selectFrom('sites').select(['id', 'account_id']).where('id', 'in', siteIds).execute();
  const found = new Set(rows.map((row) => row.id));
  return { accountIds: [...new Set(rows.map((row) => row.account_id))], missing: siteIds.filter((id) => !found.has(id)) };
}
