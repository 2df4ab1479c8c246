import type { Kysely, Selectable } from 'kysely';
import { audited, type Actor } from '../../audit/audit.ts';
import { nowIso } from '../../clock.ts';
import type { Database, IdentityProviderTable } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import type { Site } from '../../sites/repository.ts';
import { checkedIssuer, issuerOf, type ProviderType } from './kinds.ts';

export type IdentityProvider = Selectable<IdentityProviderTable>;

/** The path of the one callback every provider sends readers back to: the redirect URI registered at the provider. */
export const CALLBACK_PATH = '/v1/auth/callback';

export function callbackUrl(publicUrl: string): string {
  return `${publicUrl}${CALLBACK_PATH}`;
}

/** What admins see of a provider: never its secret. */
export function providerView(provider: IdentityProvider, publicUrl: string) {
  return {
    id: provider.id,
    site_id: provider.site_id,
    type: provider.type as ProviderType,
    name: provider.name,
    client_id: provider.client_id,
    issuer: issuerOf(provider),
    callback_url: callbackUrl(publicUrl),
    created_at: provider.created_at,
    updated_at: provider.updated_at,
  };
}

export interface NewProvider {
  type: ProviderType;
  name: string;
  client_id: string;
  client_secret: string;
  issuer?: string | null;
}

export async function createProvider(db: Kysely<Database>, site: Site, input: NewProvider, actor: Actor): Promise<IdentityProvider> {
  const now = nowIso();
  const row: IdentityProvider = {
    id: newId('idp'),
    site_id: site.id,
    type: input.type,
    name: input.name.trim(),
    client_id: input.client_id.trim(),
    client_secret: input.client_secret,
    issuer: checkedIssuer(input.type, input.issuer),
    created_at: now,
    updated_at: now,
  };
  const entry = { accountId: site.accountId, actor, action: 'identity_provider.created', target: row.id, data: { site_id: site.id, type: row.type, name: row.name } };
  await audited(db, entry, (trx) => trx.insertInto('identity_providers').values(row).execute());
  return row;
}

export function listProviders(db: Kysely<Database>, siteId: string): Promise<IdentityProvider[]> {
  return db.selectFrom('identity_providers').selectAll().where('site_id', '=', siteId).orderBy('created_at').orderBy('id').execute();
}

/** The site's provider; one of another site does not exist here (404). */
export async function providerOfSite(db: Kysely<Database>, siteId: string, providerId: string): Promise<IdentityProvider> {
  const row = await db.selectFrom('identity_providers').selectAll().where('site_id', '=', siteId).where('id', '=', providerId).executeTakeFirst();
  if (!row) throw new AppError('not_found', `No identity provider ${providerId} on site ${siteId}`);
  return row;
}

export interface ProviderChanges {
  name?: string;
  client_id?: string;
  client_secret?: string;
  /** null: the type's own issuer again (not for `oidc`, which has none). */
  issuer?: string | null;
}

export async function updateProvider(db: Kysely<Database>, site: Site, providerId: string, changes: ProviderChanges, actor: Actor): Promise<IdentityProvider> {
  const current = await providerOfSite(db, site.id, providerId);
  const set = {
    ...(changes.name !== undefined && { name: changes.name.trim() }),
    ...(changes.client_id !== undefined && { client_id: changes.client_id.trim() }),
    ...(changes.client_secret !== undefined && { client_secret: changes.client_secret }),
    ...(changes.issuer !== undefined && { issuer: checkedIssuer(current.type as ProviderType, changes.issuer) }),
    updated_at: nowIso(),
  };
  // Which fields changed, never their values: a secret has no place in the audit log.
  const changed = Object.keys(changes).filter((field) => changes[field as keyof ProviderChanges] !== undefined);
  const entry = { accountId: site.accountId, actor, action: 'identity_provider.updated', target: providerId, data: { site_id: site.id, changed } };
  await audited(db, entry, (trx) => trx.updateTable('identity_providers').set(set).where('id', '=', providerId).execute());
  return { ...current, ...set };
}

/**
 * Removes the provider and every way in through it: its readers' identities and its sign-ins in
 * progress. The readers stay (with their comments), and sign in again another way; one who had no
 * other way in is left with none until they do.
 */
export async function deleteProvider(db: Kysely<Database>, site: Site, providerId: string, actor: Actor): Promise<IdentityProvider> {
  const current = await providerOfSite(db, site.id, providerId);
  const entry = { accountId: site.accountId, actor, action: 'identity_provider.deleted', target: providerId, data: { site_id: site.id, type: current.type, name: current.name } };
  await audited(db, entry, async (trx) => {
    await trx.deleteFrom('reader_identities').where('site_id', '=', site.id).where('provider', '=', providerId).execute();
    await trx.deleteFrom('provider_sign_ins').where('provider_id', '=', providerId).execute();
    await trx.deleteFrom('identity_providers').where('id', '=', providerId).execute();
  });
  return current;
}
