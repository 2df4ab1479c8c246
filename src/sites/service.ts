import type { Kysely } from 'kysely';
import type { KeyCaller, Role } from '../auth/caller.ts';
import { hashSecret, newApiKey } from '../auth/secrets.ts';
import type { Database } from '../db/schema.ts';
import { AppError, invalid } from '../errors.ts';
import { recordEvent } from '../events/record.ts';
import { newId, newSiteId } from '../ids.ts';
import { cleanText, MAX_AUTHOR_NAME } from '../comments/text.ts';
import type { Plan } from './plans.ts';
import { requireWebhookPlan, touchesWebhooks, webhookColumns, type WebhookColumns, type WebhookSettings } from '../webhooks/settings.ts';
import { DEFAULT_REACTIONS, findSite, type ModerationMode, type Site } from './repository.ts';
import { nowIso } from '../clock.ts';
import { endSessions } from '../sessions/service.ts';

export interface SiteSettings {
  name?: string;
  domains?: string[];
  moderation_mode?: ModerationMode;
  allow_guests?: boolean;
  reactions?: string[];
  live_updates?: boolean;
  sso_moderators?: boolean;
}

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

function cleanDomains(domains: string[]): string[] {
  return [...new Set(domains.map((domain, i) => {
    const host = domain.trim().toLowerCase();
    if (!HOSTNAME.test(host)) throw invalid(`body/domains/${i}`, 'must be a host name such as example.com');
    return host;
  }))];
}

function cleanReactions(reactions: string[]): string[] {
  if (reactions.length === 0) throw invalid('body/reactions', 'must list at least one reaction type');
  return [...new Set(reactions)];
}

/** Column values for the settings that were given (PATCH semantics). */
function settingsColumns(settings: SiteSettings) {
  return {
    ...(settings.name !== undefined && { name: cleanText('body/name', settings.name, 100) }),
    ...(settings.domains !== undefined && { domains: JSON.stringify(cleanDomains(settings.domains)) }),
    ...(settings.moderation_mode !== undefined && { moderation_mode: settings.moderation_mode }),
    ...(settings.allow_guests !== undefined && { allow_guests: settings.allow_guests ? (1 as const) : (0 as const) }),
    ...(settings.reactions !== undefined && { reactions: JSON.stringify(cleanReactions(settings.reactions)) }),
    ...(settings.live_updates !== undefined && { live_updates: settings.live_updates ? (1 as const) : (0 as const) }),
    ...(settings.sso_moderators !== undefined && { sso_moderators: settings.sso_moderators ? (1 as const) : (0 as const) }),
  };
}

export async function createAccount(db: Kysely<Database>, name: string, plan: Plan): Promise<string> {
  const id = newId('acct');
  await db.insertInto('accounts').values({ id, name, plan, created_at: nowIso() }).execute();
  return id;
}

export async function createSite(db: Kysely<Database>, accountId: string, settings: SiteSettings & { name: string }): Promise<Site> {
  const id = newSiteId();
  await db
    .insertInto('sites')
    .values({
      id,
      account_id: accountId,
      name: settings.name,
      domains: '[]',
      moderation_mode: 'none',
      allow_guests: 1,
      reactions: JSON.stringify(DEFAULT_REACTIONS),
      webhook_url: null,
      webhook_secret: null,
      webhook_events: '[]',
      created_at: nowIso(),
      ...settingsColumns(settings),
    })
    .execute();
  return (await findSite(db, id))!;
}

/** Changes a site's settings; webhook settings need the webhook plan. */
export async function updateSite(
  db: Kysely<Database>,
  site: Site,
  settings: SiteSettings & WebhookSettings,
  options: { allowPrivateWebhookTargets: boolean },
): Promise<{ site: Site; generatedSecret: string | null }> {
  let webhook: WebhookColumns = { columns: {}, generatedSecret: null };
  if (touchesWebhooks(settings)) {
    requireWebhookPlan(await accountPlan(db, site.accountId));
    webhook = await webhookColumns(site, settings, options.allowPrivateWebhookTargets);
  }
  const columns = { ...settingsColumns(settings), ...webhook.columns };
  if (Object.keys(columns).length > 0) await db.updateTable('sites').set(columns).where('id', '=', site.id).execute();
  return { site: (await findSite(db, site.id))!, generatedSecret: webhook.generatedSecret };
}

export interface NewKey {
  role: Role;
  name?: string;
  site_ids?: string[] | null;
}

export async function createKey(db: Kysely<Database>, accountId: string, input: NewKey) {
  const siteIds = input.site_ids ?? null;
  if (siteIds !== null) {
    if (siteIds.length === 0) throw invalid('body/site_ids', 'must name at least one site, or be left out for every site');
    const owned = await db.selectFrom('sites').select('id').where('account_id', '=', accountId).where('id', 'in', siteIds).execute();
    if (owned.length !== new Set(siteIds).size) throw invalid('body/site_ids', 'must be sites of this account');
  }
  const apiKey = newApiKey();
  const row = {
    id: newId('key'),
    account_id: accountId,
    // The key's name is the default author_name of its comments, so it follows the same text rules.
    name: input.name === undefined ? `${input.role} key` : cleanText('body/name', input.name, MAX_AUTHOR_NAME),
    role: input.role,
    key_hash: hashSecret(apiKey),
    site_ids: siteIds === null ? null : JSON.stringify([...new Set(siteIds)]),
    created_at: nowIso(),
    revoked_at: null,
  };
  await db.insertInto('api_keys').values(row).execute();
  return { ...keyView(row), api_key: apiKey };
}

function keyView(row: { id: string; name: string; role: string; site_ids: string | null; created_at: string; revoked_at: string | null }) {
  return {
    id: row.id,
    name: row.name,
    role: row.role as Role,
    site_ids: row.site_ids === null ? null : (JSON.parse(row.site_ids) as string[]),
    created_at: row.created_at,
    revoked_at: row.revoked_at,
  };
}

/** An admin key limited to some sites may only hand out keys within those sites. */
export async function createKeyFor(db: Kysely<Database>, caller: KeyCaller, input: NewKey) {
  if (caller.siteIds !== null) {
    const requested = input.site_ids ?? null;
    if (requested === null || requested.some((id) => !caller.siteIds!.includes(id))) {
      throw new AppError('forbidden', 'A key limited to some sites can only create keys limited to those sites');
    }
  }
  return createKey(db, caller.accountId, input);
}

export async function revokeKey(db: Kysely<Database>, caller: KeyCaller, keyId: string) {
  const key = await db.selectFrom('api_keys').selectAll().where('id', '=', keyId).where('account_id', '=', caller.accountId).executeTakeFirst();
  const sites: string[] | null = key?.site_ids ? JSON.parse(key.site_ids) : null;
  const reachable = caller.siteIds === null || (sites !== null && sites.every((id) => caller.siteIds!.includes(id)));
  if (!key || !reachable) throw new AppError('not_found', `No key ${keyId}`);
  if (key.revoked_at === null) {
    key.revoked_at = nowIso();
    const revokedAt = key.revoked_at;
    // The sessions the key minted end with it.
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('api_keys').set({ revoked_at: revokedAt }).where('id', '=', keyId).execute();
      await endSessions(trx, { keyId });
    });
  }
  return keyView(key);
}

/** Changes an account's plan and tells each of its sites (subscription.changed). */
export async function setPlan(db: Kysely<Database>, accountId: string, plan: Plan) {
  return db.transaction().execute(async (trx) => {
    const account = await trx.selectFrom('accounts').select('plan').where('id', '=', accountId).executeTakeFirst();
    if (!account) throw new AppError('not_found', `No account ${accountId}`);
    if (account.plan === plan) return { account_id: accountId, plan, previous_plan: plan };
    await trx.updateTable('accounts').set({ plan }).where('id', '=', accountId).execute();
    const sites = await trx.selectFrom('sites').select('id').where('account_id', '=', accountId).execute();
    for (const site of sites) {
      await recordEvent(trx, { accountId, siteId: site.id, type: 'subscription.changed', data: { plan, previous_plan: account.plan } });
    }
    return { account_id: accountId, plan, previous_plan: account.plan };
  });
}

export async function accountPlan(db: Kysely<Database>, accountId: string): Promise<Plan> {
  const account = await db.selectFrom('accounts').select('plan').where('id', '=', accountId).executeTakeFirstOrThrow();
  return account.plan as Plan;
}
