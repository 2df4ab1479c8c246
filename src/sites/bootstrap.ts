import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { Plan } from './plans.ts';
import type { ModerationMode } from './repository.ts';
import { createAccount, createKey, createSite } from './service.ts';

export interface BootstrapOptions {
  siteName: string;
  domains?: string[];
  plan?: Plan;
  moderation?: ModerationMode;
  allowGuests?: boolean;
}

/** A new account with one site and an admin key: what `parley bootstrap` prints. */
export async function bootstrap(db: Kysely<Database>, options: BootstrapOptions) {
  return db.transaction().execute(async (trx) => {
    const accountId = await createAccount(trx, options.siteName, options.plan ?? 'free');
    const site = await createSite(trx, accountId, {
      name: options.siteName,
      domains: options.domains,
      moderation_mode: options.moderation,
      allow_guests: options.allowGuests,
    });
    const key = await createKey(trx, accountId, { role: 'admin', name: 'bootstrap admin key' });
    return { account_id: accountId, site_id: site.id, api_key: key.api_key };
  });
}

/** `npm start` on an empty database: a demo site so a newcomer can try the API at once. */
export async function bootstrapDemoIfEmpty(db: Kysely<Database>) {
  const any = await db.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
  if (any) return null;
  return bootstrap(db, { siteName: 'Parley demo', plan: 'publisher' });
}
