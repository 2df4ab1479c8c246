import type { Locale } from '../i18n/locales.ts';
import type { Kysely, Transaction } from 'kysely';
import { nowIso } from '../clock.ts';
import { cleanText, MAX_AUTHOR_NAME, NAME_PATTERN } from '../comments/text.ts';
import type { Db } from '../db/connect.ts';
import type { Database } from '../db/schema.ts';
import { AppError, invalid } from '../errors.ts';
import { newId } from '../ids.ts';
import { openSession } from '../sessions/service.ts';
import type { Site } from '../sites/repository.ts';

/** The `provider` of an identity proven by a code mailed to its address (the address is its subject). */
export const EMAIL_PROVIDER = 'email';

/** What a way of signing in proved about a reader. */
export interface ProvenIdentity {
  /** EMAIL_PROVIDER, or the identity provider's id (idp_…). */
  provider: string;
  /** The reader's id at the provider (`sub`), or their lower-cased address for EMAIL_PROVIDER. */
  subject: string;
  /** Lower-cased; null when the provider gave none. */
  email: string | null;
  /** Proven: by a code Parley mailed, or vouched for by the provider (OpenID's email_verified, GitHub's verified addresses). */
  emailVerified: boolean;
  /** The name to start a new account with; the reader changes it later. */
  name: string | null;
  /** The provider's picture of the reader, shown only where the site allows it. */
  pictureUrl: string | null;
}

const NAME_SHOWN_AS_WRITTEN = new RegExp(NAME_PATTERN, 'u');

/** A new reader's name: the provider's, when it can be shown as written, else a neutral one (never their address). */
function startingName(identity: ProvenIdentity): string {
  const given = identity.name?.trim();
  if (given && NAME_SHOWN_AS_WRITTEN.test(given)) return cleanText('name', given.slice(0, MAX_AUTHOR_NAME), MAX_AUTHOR_NAME);
  return 'Reader';
}

/**
 * Signs a reader in on the site: one user per site whatever the way in. The identity's own user
 * first; else, when the way in proved an address, the user who proved that address before (by a
 * code or another provider that vouched for it), to whom this identity is then linked; else a new
 * user. An address a provider did not vouch for never links: it would let anyone who can make an
 * account at some provider with another person's address take over that person's comments.
 * Answers the body of `POST /v1/sessions`.
 */
export async function signInReader(db: Db, site: Site, identity: ProvenIdentity, language: Locale | null = null) {
  return db.kysely.transaction().execute(async (trx) => {
    const now = nowIso();
    const user = (await ownUser(trx, site, identity)) ?? (await userOfAddress(trx, site, identity)) ?? (await newReader(trx, site, identity, language, now));
    await trx
      .insertInto('reader_identities')
      .values({
        id: newId('rid'),
        site_id: site.id,
        user_id: user.id,
        provider: identity.provider,
        subject: identity.subject,
        email: identity.email,
        email_verified: identity.emailVerified ? 1 : 0,
        created_at: now,
        last_used_at: now,
      })
      .onConflict((oc) => oc.columns(['site_id', 'provider', 'subject']).doUpdateSet({ email: identity.email, email_verified: identity.emailVerified ? 1 : 0, last_used_at: now }))
      .execute();
    const refresh = {
      ...(identity.emailVerified && identity.email !== null && user.email === null && { email: identity.email }),
      ...(site.providerAvatars && identity.pictureUrl !== null && { avatar_url: identity.pictureUrl }),
      // The language they sign in from: their mention mails speak it (written only when it changed).
      ...(language !== null && language !== user.language && { language }),
    };
    if (Object.keys(refresh).length > 0) await trx.updateTable('site_users').set(refresh).where('id', '=', user.id).execute();
    return openSession(trx, { ...user, ...refresh }, { moderator: false, keyId: null });
  });
}

const USER_COLUMNS = ['site_users.id', 'site_users.site_id', 'site_users.external_id', 'site_users.name', 'site_users.avatar_url', 'site_users.email', 'site_users.erase_after', 'site_users.language'] as const;

function ownUser(trx: Transaction<Database>, site: Site, identity: ProvenIdentity) {
  return trx
    .selectFrom('reader_identities')
    .innerJoin('site_users', 'site_users.id', 'reader_identities.user_id')
    .select(USER_COLUMNS)
    .where('reader_identities.site_id', '=', site.id)
    .where('reader_identities.provider', '=', identity.provider)
    .where('reader_identities.subject', '=', identity.subject)
    .where('site_users.erased_at', 'is', null)
    .executeTakeFirst();
}

function userOfAddress(trx: Transaction<Database>, site: Site, identity: ProvenIdentity) {
  if (!identity.emailVerified || identity.email === null) return undefined;
  return trx
    .selectFrom('reader_identities')
    .innerJoin('site_users', 'site_users.id', 'reader_identities.user_id')
    .select(USER_COLUMNS)
    .where('reader_identities.site_id', '=', site.id)
    .where('reader_identities.email', '=', identity.email)
    .where('reader_identities.email_verified', '=', 1)
    .where('site_users.erased_at', 'is', null)
    .orderBy('reader_identities.created_at')
    .limit(1)
    .executeTakeFirst();
}

/** A reader's own account: its site id (`external_id`) is Parley's, `reader:<user id>`, which no site's user ids are. */
async function newReader(trx: Transaction<Database>, site: Site, identity: ProvenIdentity, language: Locale | null, now: string) {
  const id = newId('usr');
  const row = {
    id,
    site_id: site.id,
    external_id: `${READER_ID_PREFIX}${id}`,
    name: startingName(identity),
    avatar_url: site.providerAvatars ? identity.pictureUrl : null,
    email: identity.emailVerified ? identity.email : null,
    language,
    first_comment_at: null,
    created_at: now,
  };
  await trx.insertInto('site_users').values(row).execute();
  return { ...row, erase_after: null };
}

/** The start of `external_id` for readers who signed in by themselves (not a site's SSO or backend). */
export const READER_ID_PREFIX = 'reader:';

export function isOwnAccount(externalId: string): boolean {
  return externalId.startsWith(READER_ID_PREFIX);
}

/**
 * Where a sign-in brings the reader back: a page of the site's domains, or of Parley itself (its
 * demo page). A site without domains is embeddable anywhere, so no page can be told apart from an
 * attacker's: readers sign in there only once the site lists its domains.
 */
export function returnTarget(site: Site, publicUrl: string, returnTo: string, path = 'querystring/return_to'): URL {
  let url: URL;
  try {
    url = new URL(returnTo);
  } catch {
    throw invalid(path, 'must be an absolute http(s) URL of a page of the site');
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password) throw invalid(path, 'must be an absolute http(s) URL of a page of the site');
  if (url.origin === new URL(publicUrl).origin) return url;
  if (site.domains.length === 0) {
    throw new AppError('conflict', "Readers sign in only on a site that lists its domains: add the site's domains (PATCH /api/sites/:id {domains}) first");
  }
  const defaultPort = url.port === '';
  if (!site.domains.includes(url.host) && !(defaultPort && site.domains.includes(url.hostname))) {
    throw invalid(path, `host ${url.host} is not one of the site's domains (${site.domains.join(', ')})`);
  }
  return url;
}

/** The reader signed in by themselves can be told from a site's users: these endpoints refuse the others with 403. */
export async function requireOwnAccount(db: Kysely<Database>, userId: string): Promise<void> {
  const row = await db.selectFrom('site_users').select('external_id').where('id', '=', userId).executeTakeFirst();
  if (!row || !isOwnAccount(row.external_id)) throw new AppError('forbidden', "This account is the site's: its name and sign-in are managed by the site");
}
