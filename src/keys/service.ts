import type { Kysely, Selectable } from 'kysely';
import { membershipFor, type Caller, type Membership, type Role } from '../auth/caller.ts';
import { administeredAccount, grants, requireCapability } from '../auth/management.ts';
import { actorOf, audited, CLI_ACTOR, recordAudit, type Actor } from '../audit/audit.ts';
import { hashSecret, newApiKey } from '../auth/secrets.ts';
import { nowIso } from '../clock.ts';
import { cleanText, MAX_AUTHOR_NAME } from '../comments/text.ts';
import type { ApiKeyTable, Database } from '../db/schema.ts';
import { AppError, invalid } from '../errors.ts';
import { newId } from '../ids.ts';
import { endSessions } from '../sessions/service.ts';
import type { KeyUse } from './last-used.ts';

export interface NewKey {
  role: Role;
  name?: string;
  site_ids?: string[] | null;
  account_id?: string;
}

/** Characters of the secret kept to recognise a key: `sk_` and 7 of its 40 random ones. */
const PREFIX_LENGTH = 10;

type KeyRow = Selectable<ApiKeyTable>;

export function keyView(row: KeyRow, lastUsedAt: string | null = row.last_used_at) {
  return {
    id: row.id,
    name: row.name,
    role: row.role as Role,
    site_ids: row.site_ids === null ? null : (JSON.parse(row.site_ids) as string[]),
    prefix: row.prefix,
    created_at: row.created_at,
    last_used_at: lastUsedAt,
    revoked_at: row.revoked_at,
  };
}

/** The key's name is the default author_name of its comments, so it follows the same text rules. */
function keyName(name: string): string {
  return cleanText('body/name', name, MAX_AUTHOR_NAME);
}

/**
 * A new key of the account (the CLI's and bootstrap's way in; no caller to check). Run it in a
 * transaction, so the key and its audit entry land together.
 */
export async function createKey(db: Kysely<Database>, accountId: string, input: NewKey, actor: Actor = CLI_ACTOR) {
  const siteIds = input.site_ids ?? null;
  if (siteIds !== null) {
    if (siteIds.length === 0) throw invalid('body/site_ids', 'must name at least one site, or be left out for every site');
    const owned = await db.selectFrom('sites').select('id').where('account_id', '=', accountId).where('id', 'in', siteIds).execute();
    if (owned.length !== new Set(siteIds).size) throw invalid('body/site_ids', 'must be sites of this account');
  }
  const apiKey = newApiKey();
  const row: KeyRow = {
    id: newId('key'),
    account_id: accountId,
    name: input.name === undefined ? `${input.role} key` : keyName(input.name),
    role: input.role,
    key_hash: hashSecret(apiKey),
    site_ids: siteIds === null ? null : JSON.stringify([...new Set(siteIds)]),
    created_at: nowIso(),
    revoked_at: null,
    prefix: apiKey.slice(0, PREFIX_LENGTH),
    last_used_at: null,
  };
  await db.insertInto('api_keys').values(row).execute();
  await recordAudit(db, { accountId, actor, action: 'key.created', target: row.id, data: { name: row.name, role: row.role, site_ids: siteIds } });
  return { ...keyView(row), api_key: apiKey };
}

/** A caller limited to some sites may only hand out keys within those sites. */
export async function createKeyFor(db: Kysely<Database>, caller: Caller, input: NewKey) {
  const membership = administeredAccount(caller, input.account_id);
  const reach = membership.siteIds;
  if (reach !== null) {
    const requested = input.site_ids ?? null;
    if (requested === null || requested.some((id) => !reach.includes(id))) {
      throw new AppError('forbidden', 'A credential limited to some sites can only create keys limited to those sites');
    }
  }
  return db.transaction().execute((trx) => createKey(trx, membership.accountId, input, actorOf(caller)));
}

/** Whether a membership may manage this key: it administers the account and reaches every site the key does. */
function manages(membership: Membership | null, key: KeyRow): boolean {
  if (!membership || !grants(membership, 'administer')) return false;
  if (membership.siteIds === null) return true;
  const sites: string[] | null = key.site_ids === null ? null : JSON.parse(key.site_ids);
  return sites !== null && sites.every((id) => membership.siteIds!.includes(id));
}

/** A key the caller manages; other accounts' keys, and keys reaching beyond the caller's sites, are 404. */
async function managedKey(db: Kysely<Database>, caller: Caller, keyId: string): Promise<KeyRow> {
  requireCapability(caller, 'administer');
  const key = await db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
  if (!key || !manages(membershipFor(caller, key.account_id), key)) throw new AppError('not_found', `No key ${keyId}`);
  return key;
}

/** The keys of every account the caller administers (those it manages), newest first. */
export async function listKeys(db: Kysely<Database>, caller: Caller, keyUse: KeyUse, options: { includeRevoked: boolean }) {
  const memberships = requireCapability(caller, 'administer');
  let query = db
    .selectFrom('api_keys')
    .selectAll()
    .where('account_id', 'in', memberships.map((membership) => membership.accountId))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc');
  if (!options.includeRevoked) query = query.where('revoked_at', 'is', null);
  const rows = await query.execute();
  const keys = rows.filter((row) => manages(membershipFor(caller, row.account_id), row));
  return { keys: keys.map((row) => keyView(row, keyUse.lastUsedAt(row.id, row.last_used_at))) };
}

export async function renameKey(db: Kysely<Database>, caller: Caller, keyId: string, name: string, keyUse: KeyUse) {
  const key = await managedKey(db, caller, keyId);
  if (key.revoked_at !== null) throw new AppError('conflict', 'A revoked key cannot be renamed');
  const from = key.name;
  key.name = keyName(name);
  const entry = { accountId: key.account_id, actor: actorOf(caller), action: 'key.renamed', target: keyId, data: { from, to: key.name } };
  await audited(db, entry, (trx) => trx.updateTable('api_keys').set({ name: key.name }).where('id', '=', keyId).execute());
  return keyView(key, keyUse.lastUsedAt(key.id, key.last_used_at));
}

/** Revokes a key: it is refused (401) from then on. Idempotent. */
export async function revokeKey(db: Kysely<Database>, caller: Caller, keyId: string, keyUse: KeyUse) {
  const key = await managedKey(db, caller, keyId);
  if (key.revoked_at === null) {
    const revokedAt = nowIso();
    key.revoked_at = revokedAt;
    // The sessions the key minted end with it.
    const entry = { accountId: key.account_id, actor: actorOf(caller), action: 'key.revoked', target: keyId, data: { name: key.name } };
    await audited(db, entry, async (trx) => {
      await trx.updateTable('api_keys').set({ revoked_at: revokedAt }).where('id', '=', keyId).execute();
      await endSessions(trx, { keyId });
    });
  }
  return keyView(key, keyUse.lastUsedAt(key.id, key.last_used_at));
}
