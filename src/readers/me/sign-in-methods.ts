import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { normaliseEmail } from '../../staff/repository.ts';
import { EMAIL_PROVIDER } from '../sign-in.ts';
import type { SIGN_IN_TYPES } from './schemas.ts';

export interface SignInMethod {
  id: string;
  type: (typeof SIGN_IN_TYPES)[number];
  provider_id: string | null;
  provider_name: string | null;
  email: string | null;
  created_at: string;
  last_used_at: string;
}

/**
 * A user's ways of signing in on their site, oldest first: their identities by a mailed code or by
 * one of the site's identity providers. An identity whose provider the site removed signs no one in
 * any more, so it is not one.
 */
export async function signInMethodsOf(db: Kysely<Database>, siteId: string, userId: string): Promise<SignInMethod[]> {
  const rows = await db
    .selectFrom('reader_identities as r')
    .leftJoin('identity_providers as p', (join) => join.onRef('p.id', '=', 'r.provider').onRef('p.site_id', '=', 'r.site_id'))
    .select(['r.id', 'r.provider', 'r.email', 'r.created_at', 'r.last_used_at', 'p.type', 'p.name'])
    .where('r.site_id', '=', siteId)
    .where('r.user_id', '=', userId)
    .where((eb) => eb.or([eb('r.provider', '=', EMAIL_PROVIDER), eb('p.id', 'is not', null)]))
    .orderBy('r.created_at')
    .orderBy('r.id')
    .execute();
  return rows.map((row) => {
    const byEmail = row.provider === EMAIL_PROVIDER;
    return {
      id: row.id,
      type: (byEmail ? 'email' : row.type) as SignInMethod['type'],
      provider_id: byEmail ? null : row.provider,
      provider_name: byEmail ? null : row.name,
      email: row.email,
      created_at: row.created_at,
      last_used_at: row.last_used_at,
    };
  });
}

/**
 * The addresses that are a user's own on their site, lower-cased: the one they are known by
 * (`site_users.email`: a site's SSO token gave it, or their first proof did), and every one they
 * proved to sign in. An address a provider gave without vouching for it is not one.
 */
export async function ownAddresses(db: Kysely<Database>, siteId: string, user: { id: string; email: string | null }): Promise<string[]> {
  const proven = await db
    .selectFrom('reader_identities')
    .select('email')
    .where('site_id', '=', siteId)
    .where('user_id', '=', user.id)
    .where('email_verified', '=', 1)
    .where('email', 'is not', null)
    .execute();
  return [...new Set([...(user.email ? [normaliseEmail(user.email)] : []), ...proven.map((identity) => identity.email!)])];
}
