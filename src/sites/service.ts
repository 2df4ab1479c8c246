import type { Kysely } from 'kysely';
import type { Db } from '../db/connect.ts';
import { audited, CLI_ACTOR, recordAudit, type Actor } from '../audit/audit.ts';
import type { Database } from '../db/schema.ts';
import { AppError, invalid } from '../errors.ts';
import { recordEvent } from '../events/record.ts';
import { newId, newSiteId } from '../ids.ts';
import { cleanText } from '../comments/text.ts';
import type { Plan } from './plans.ts';
import { requireWebhookPlan, touchesWebhooks, webhookColumns, type WebhookColumns, type WebhookSettings } from '../webhooks/settings.ts';
import { DEFAULT_REACTIONS, findSite, type ModerationMode, type Site } from './repository.ts';
import { nowIso } from '../clock.ts';
import { encodeSpamSettings, type SpamSettingsPatch } from '../spam/settings.ts';
import type { Formatting } from '../formatting/html.ts';
import type { Locale } from '../i18n/locales.ts';
import { encodeSiteStrings, mergeSiteStrings, type SiteStrings } from './strings.ts';
import { cleanContact } from '../contests/contact.ts';

export interface SiteSettings {
  name?: string;
  domains?: string[];
  moderation_mode?: ModerationMode;
  allow_guests?: boolean;
  reactions?: string[];
  live_updates?: boolean;
  sso_moderators?: boolean;
  email_sign_in?: boolean;
  provider_avatars?: boolean;
  formatting?: Formatting;
  edit_window_seconds?: number | null;
  language?: Locale | null;
  strings?: Record<string, Record<string, string> | null> | null;
  spam?: SpamSettingsPatch;
  contact?: string | null;
}

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** A host, or a host and the port its pages are served on when that is not the scheme's default (`localhost:8080`). */
function cleanDomains(domains: string[]): string[] {
  return [...new Set(domains.map((domain, i) => {
    const entry = domain.trim().toLowerCase();
    const [, host, port] = /^([^:]*)(?::(\d{1,5}))?$/.exec(entry) ?? [];
    if (host === undefined || !HOSTNAME.test(host) || (port !== undefined && (Number(port) < 1 || Number(port) > 65535))) {
      throw invalid(`body/domains/${i}`, 'must be a host name such as example.com, with a port if its pages use another than the default (localhost:8080)');
    }
    return port === undefined ? host : `${host}:${Number(port)}`;
  }))];
}

function cleanReactions(reactions: string[]): string[] {
  if (reactions.length === 0) throw invalid('body/reactions', 'must list at least one reaction type');
  return [...new Set(reactions)];
}

/** Column values for the settings that were given (PATCH semantics); `spamColumn` is the site's spam settings as stored. */
function settingsColumns(settings: SiteSettings, spamColumn = '{}', strings: SiteStrings = {}) {
  return {
    ...(settings.name !== undefined && { name: cleanText('body/name', settings.name, 100) }),
    ...(settings.domains !== undefined && { domains: JSON.stringify(cleanDomains(settings.domains)) }),
    ...(settings.moderation_mode !== undefined && { moderation_mode: settings.moderation_mode }),
    ...(settings.allow_guests !== undefined && { allow_guests: settings.allow_guests ? (1 as const) : (0 as const) }),
    ...(settings.reactions !== undefined && { reactions: JSON.stringify(cleanReactions(settings.reactions)) }),
    ...(settings.live_updates !== undefined && { live_updates: settings.live_updates ? (1 as const) : (0 as const) }),
    ...(settings.sso_moderators !== undefined && { sso_moderators: settings.sso_moderators ? (1 as const) : (0 as const) }),
    ...(settings.email_sign_in !== undefined && { email_sign_in: settings.email_sign_in ? (1 as const) : (0 as const) }),
    ...(settings.provider_avatars !== undefined && { provider_avatars: settings.provider_avatars ? (1 as const) : (0 as const) }),
    ...(settings.formatting !== undefined && { formatting: settings.formatting }),
    ...(settings.edit_window_seconds !== undefined && { edit_window_seconds: settings.edit_window_seconds }),
    ...(settings.language !== undefined && { language: settings.language }),
    ...(settings.strings !== undefined && { strings: encodeSiteStrings(mergeSiteStrings(strings, settings.strings)) }),
    ...(settings.spam !== undefined && { spam_settings: encodeSpamSettings(spamColumn, settings.spam) }),
    ...(settings.contact !== undefined && { contact: cleanContact(settings.contact) }),
  };
}

export async function createAccount(db: Kysely<Database>, name: string, plan: Plan): Promise<string> {
  const id = newId('acct');
  await db.insertInto('accounts').values({ id, name, plan, created_at: nowIso() }).execute();
  return id;
}

/** Run it in a transaction (the routes and the first run's bootstrap do), so the site and its audit entry land together. */
export async function createSite(db: Kysely<Database>, accountId: string, settings: SiteSettings & { name: string }, actor: Actor = CLI_ACTOR): Promise<Site> {
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
  await recordAudit(db, { accountId, actor, action: 'site.created', target: id, data: { name: settings.name } });
  return (await findSite(db, id))!;
}

/** Changes a site's settings; webhook settings need the webhook plan. */
export async function updateSite(
  db: Kysely<Database>,
  site: Site,
  settings: SiteSettings & WebhookSettings,
  options: { allowPrivateWebhookTargets: boolean },
  actor: Actor,
): Promise<{ site: Site; generatedSecret: string | null }> {
  let webhook: WebhookColumns = { columns: {}, generatedSecret: null };
  if (touchesWebhooks(settings)) {
    requireWebhookPlan(await accountPlan(db, site.accountId));
    webhook = await webhookColumns(site, settings, options.allowPrivateWebhookTargets);
  }
  const columns = { ...settingsColumns(settings, site.spamSettingsColumn, site.strings), ...webhook.columns };
  if (Object.keys(columns).length > 0) {
    // Which settings changed, never their values: a webhook secret must not reach the log.
    const changed = { settings: Object.keys(settings), ...(settings.spam && { spam: Object.keys(settings.spam) }) };
    const entry = { accountId: site.accountId, actor, action: 'site.updated', target: site.id, data: changed };
    await audited(db, entry, (trx) => trx.updateTable('sites').set(columns).where('id', '=', site.id).execute());
  }
  return { site: (await findSite(db, site.id))!, generatedSecret: webhook.generatedSecret };
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

/**
 * Deletes a site and everything of it in one transaction, once `confirm` names it (its name or id).
 * Keys limited to some sites lose this one; a key limited to it alone is revoked (an empty list
 * would not mean "no site").
 */
export async function deleteSite(db: Db, site: Site, confirm: string, actor: Actor) {
  if (confirm !== site.name && confirm !== site.id) throw invalid('body/confirm', "must be the site's name or id");
  const entry = { accountId: site.accountId, actor, action: 'site.deleted', target: site.id, data: { name: site.name } };
  // Signals of comments committed a moment ago are written behind them: written now, the deletion
  // below takes them too, rather than their insert landing after it.
  await db.spamSignals.flush();
  const comments = await audited(db.kysely, entry, async (trx) => {
    const comments = trx.selectFrom('comments').select('id').where('site_id', '=', site.id);
    for (const table of ['votes', 'reactions', 'flags', 'comment_revisions'] as const) {
      await trx.deleteFrom(table).where('comment_id', 'in', comments).execute();
    }
    // Readers' addresses are personal data: they go with the site, as do their mails.
    const addresses = trx.selectFrom('mail_addresses').select('id').where('site_id', '=', site.id);
    await trx.deleteFrom('mail_subscriptions').where('address_id', 'in', addresses).execute();
    await trx.deleteFrom('mail_outbox').where('site_id', '=', site.id).execute();
    await trx.deleteFrom('mail_addresses').where('site_id', '=', site.id).execute();
    const deliveries = trx.selectFrom('webhook_deliveries').select('id').where('site_id', '=', site.id);
    await trx.deleteFrom('webhook_attempts').where('delivery_id', 'in', deliveries).execute();
    // Readers' ways of signing in, and codes and sign-ins in progress, hold their addresses.
    for (const table of ['identity_providers', 'reader_identities', 'sign_in_codes', 'provider_sign_ins'] as const) {
      await trx.deleteFrom(table).where('site_id', '=', site.id).execute();
    }
    // The spam signals hold guests' addresses (their author keys and ranges); every index of theirs starts with the site.
    // Readers' follows and notifications are theirs; a chat alert's messages go before the alert.
    for (const table of ['decision_contests', 'notifications', 'notification_jobs', 'follows', 'moderation_log', 'bans', 'commenter_notes', 'author_counts', 'site_daily_counts', 'thread_queue_counts', 'webhook_deliveries', 'site_alerts', 'events', 'queue_events', 'spam_signals', 'classifier_examples', 'classifier_counts', 'classifier_models'] as const) {
      await trx.deleteFrom(table).where('site_id', '=', site.id).execute();
    }
    const deleted = await trx.deleteFrom('comments').where('site_id', '=', site.id).executeTakeFirst();
    for (const table of ['threads', 'sessions', 'site_users'] as const) {
      await trx.deleteFrom(table).where('site_id', '=', site.id).execute();
    }
    await dropSiteFromKeys(trx, site);
    await trx.deleteFrom('sites').where('id', '=', site.id).execute();
    return Number(deleted.numDeletedRows);
  });
  db.spamSignals.forgetSite(site.id);
  db.classifierModels.forgetSite(site.id);
  db.changes.siteChanged(site.id);
  return { id: site.id, deleted: true as const, comments };
}

async function dropSiteFromKeys(trx: Kysely<Database>, site: Site): Promise<void> {
  const keys = await trx.selectFrom('api_keys').select(['id', 'site_ids']).where('account_id', '=', site.accountId).where('site_ids', 'is not', null).execute();
  for (const key of keys) {
    const sites = JSON.parse(key.site_ids!) as string[];
    if (!sites.includes(site.id)) continue;
    const rest = sites.filter((id) => id !== site.id);
    const change = rest.length > 0 ? { site_ids: JSON.stringify(rest) } : { revoked_at: nowIso() };
    await trx.updateTable('api_keys').set(change).where('id', '=', key.id).where('revoked_at', 'is', null).execute();
  }
}
