import type { Selectable } from 'kysely';
import { requireCredential, type Caller } from '../../auth/caller.ts';
import type { Db } from '../../db/connect.ts';
import type { SiteUserTable } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { siteOrNotFound, type Site } from '../../sites/repository.ts';
import { isOwnAccount } from '../sign-in.ts';

export type ReaderRow = Selectable<SiteUserTable>;

/** The signed-in reader of a request to their own page: a session's, never a key's (403) or the public's (401). */
export async function readerOf(db: Db, caller: Caller): Promise<{ site: Site; user: ReaderRow }> {
  requireCredential(caller);
  if (caller.kind !== 'session') throw new AppError('forbidden', "A reader's own page needs the reader's session, not an API key");
  const site = await siteOrNotFound(db.kysely, caller.siteId);
  const user = await db.kysely.selectFrom('site_users').selectAll().where('id', '=', caller.userId).executeTakeFirstOrThrow();
  return { site, user };
}

/** What only a reader who signed in by themselves changes; a site's SSO or backend users are the site's (403 with `refusal`). */
export function requireOwn(user: ReaderRow, refusal: string): void {
  if (!isOwnAccount(user.external_id)) throw new AppError('forbidden', refusal);
}
