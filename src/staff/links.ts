import type { Kysely, Selectable } from 'kysely';
import { hashSecret } from '../auth/secrets.ts';
import { nowIso } from '../clock.ts';
import type { Database, StaffLinkTable } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { newId, randomBase62 } from '../ids.ts';
import { storedSiteIds, type StaffRole } from './repository.ts';

/**
 * Single-use links, shown once to copy (no mail server needed): an invite into an account, a
 * password reset, and the first run's setup link (an invite to become the demo account's owner).
 * The token is 240 random bits in the link's fragment (`#token=`), so browsers never send it in a
 * Referer or to a server log; only its SHA-256 is stored, so a link cannot be forged or recovered
 * from the database, and it is spent, revoked or expired in its row. A fourth kind, mailed rather
 * than shown, confirms a staff member's address (addresses.ts).
 */
export type LinkKind = 'invite' | 'reset' | 'setup' | 'verify';
export type LinkRow = Selectable<StaffLinkTable>;

const ID_PREFIX = { invite: 'inv', reset: 'rst', setup: 'stp', verify: 'vfy' } as const;
const DASHBOARD_PAGE = { invite: 'accept-invite', reset: 'reset-password', setup: 'setup' } as const;
const LINK_LIFETIME_MS: Record<LinkKind, number> = { invite: 7 * 24 * 3600_000, reset: 24 * 3600_000, setup: 7 * 24 * 3600_000, verify: 7 * 24 * 3600_000 };

export interface NewLink {
  kind: LinkKind;
  accountId: string;
  createdBy: string;
  staffId?: string;
  email?: string | null;
  role?: StaffRole;
  siteIds?: string[] | null;
}

export async function createLink(db: Kysely<Database>, input: NewLink): Promise<{ row: LinkRow; token: string }> {
  const token = `${input.kind}_${randomBase62(40)}`;
  const now = Date.now();
  const row: LinkRow = {
    id: newId(ID_PREFIX[input.kind]),
    kind: input.kind,
    token_hash: hashSecret(token),
    account_id: input.accountId,
    staff_id: input.staffId ?? null,
    email: input.email ?? null,
    role: input.role ?? null,
    site_ids: storedSiteIds(input.siteIds ?? null),
    created_by: input.createdBy,
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + LINK_LIFETIME_MS[input.kind]).toISOString(),
    used_at: null,
    used_by: null,
    revoked_at: null,
  };
  await db.insertInto('staff_links').values(row).execute();
  return { row, token };
}

/** Where the dashboard takes the link's token from (`base` is this server's origin). */
export function linkUrl(base: string, kind: keyof typeof DASHBOARD_PAGE, token: string): string {
  return `${base}/dashboard/${DASHBOARD_PAGE[kind]}#token=${token}`;
}

export function linkState(row: LinkRow): 'pending' | 'used' | 'revoked' | 'expired' {
  if (row.used_at !== null) return 'used';
  if (row.revoked_at !== null) return 'revoked';
  return row.expires_at <= nowIso() ? 'expired' : 'pending';
}

const UNUSABLE: Record<LinkKind, string> = {
  invite: 'This invite link is unknown, used, revoked or expired',
  reset: 'This reset link is unknown, used, replaced or expired',
  setup: 'This setup link is unknown, used or expired',
  verify: 'This confirmation link is unknown, used, replaced or expired',
};

/** The pending link of a token, or 404 however it is unusable (the answer tells nothing more). */
export async function pendingLink(db: Kysely<Database>, kind: LinkKind, token: string): Promise<LinkRow> {
  const row = token.startsWith(`${kind}_`)
    ? await db.selectFrom('staff_links').selectAll().where('token_hash', '=', hashSecret(token)).where('kind', '=', kind).executeTakeFirst()
    : undefined;
  if (!row || linkState(row) !== 'pending') throw new AppError('not_found', UNUSABLE[kind]);
  return row;
}

/** Spends the link inside the transaction of what it grants; of two uses at once, one wins. */
export async function spendLink(trx: Kysely<Database>, row: LinkRow, usedBy: string): Promise<void> {
  const spent = await trx
    .updateTable('staff_links')
    .set({ used_at: nowIso(), used_by: usedBy })
    .where('id', '=', row.id)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (Number(spent.numUpdatedRows) !== 1) throw new AppError('not_found', UNUSABLE[row.kind as LinkKind]);
}

/**
 * Revokes the pending links that match: earlier reset links of a person (a new one, or a change of
 * their roles), the links a member made (once removed or demoted), setup links once an owner exists.
 */
export async function revokePendingLinks(db: Kysely<Database>, where: { kind?: LinkKind; accountId?: string; staffId?: string; createdBy?: string }): Promise<void> {
  let query = db.updateTable('staff_links').set({ revoked_at: nowIso() }).where('used_at', 'is', null).where('revoked_at', 'is', null);
  if (where.kind) query = query.where('kind', '=', where.kind);
  if (where.accountId) query = query.where('account_id', '=', where.accountId);
  if (where.staffId) query = query.where('staff_id', '=', where.staffId);
  if (where.createdBy) query = query.where('created_by', '=', where.createdBy);
  await query.execute();
}
