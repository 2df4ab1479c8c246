import type { Kysely } from 'kysely';
import type { Db } from '../db/connect.ts';
import { exclusiveTransaction } from '../db/dialect.ts';
import type { Database } from '../db/schema.ts';
import { createLink } from '../staff/links.ts';
import type { Plan } from './plans.ts';
import type { ModerationMode } from './repository.ts';
import { createKey } from '../keys/service.ts';
import { createAccount, createSite } from './service.ts';

export interface BootstrapOptions {
  siteName: string;
  domains?: string[];
  plan?: Plan;
  moderation?: ModerationMode;
  allowGuests?: boolean;
}

async function createAccountWithSite(trx: Kysely<Database>, options: BootstrapOptions) {
  const accountId = await createAccount(trx, options.siteName, options.plan ?? 'free');
  const site = await createSite(trx, accountId, {
    name: options.siteName,
    domains: options.domains,
    moderation_mode: options.moderation,
    allow_guests: options.allowGuests,
  });
  const key = await createKey(trx, accountId, { role: 'admin', name: 'bootstrap admin key' });
  return { account_id: accountId, site_id: site.id, api_key: key.api_key };
}

/** A new account with one site and an admin key: what `parley bootstrap` prints. */
export async function bootstrap(db: Kysely<Database>, options: BootstrapOptions) {
  return db.transaction().execute((trx) => createAccountWithSite(trx, options));
}

/**
 * `npm start` on an empty database: a demo site so a newcomer can try the API at once, and a
 * one-time setup link through which its first owner signs up (a staff member). Instances starting
 * together on an empty database check and create under one lock, so exactly one of them creates it.
 */
export async function bootstrapDemoIfEmpty(db: Db) {
  return exclusiveTransaction(db.kysely, db.dialect, 'parley:demo-bootstrap', async (trx) => {
    const any = await trx.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
    if (any) return null;
    const demo = await createAccountWithSite(trx, { siteName: 'Parley demo', plan: 'publisher' });
    const setup = await createLink(trx, { kind: 'setup', accountId: demo.account_id, createdBy: 'setup', role: 'owner' });
    return { ...demo, setup_token: setup.token };
  });
}
