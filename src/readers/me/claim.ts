import type { Kysely } from 'kysely';
import type { Caller } from '../../auth/caller.ts';
import type { Db } from '../../db/connect.ts';
import { toCount } from '../../db/dialect.ts';
import type { Database } from '../../db/schema.ts';
import { isOwnAccount } from '../sign-in.ts';
import { readerOf, type ReaderRow } from './reader.ts';

/**
 * The reader's guest comments on the site: not deleted, left without an account, whose "Email me
 * replies" went to an address the reader has proven by signing in (an email code, or a provider
 * that vouched for it), and whose own confirmation link was followed. The subscription's
 * confirmation, not the address's, is what proves the comment was theirs: an address confirmed once
 * can be typed under anyone's comment, and that subscription is never confirmed. A site's users
 * prove no address to Parley, so they have none.
 */
function claimableIds(db: Kysely<Database>, siteId: string, userId: string) {
  return db
    .selectFrom('reader_identities as r')
    .innerJoin('mail_addresses as a', (join) => join.onRef('a.site_id', '=', 'r.site_id').onRef('a.email', '=', 'r.email'))
    .innerJoin('mail_subscriptions as s', 's.address_id', 'a.id')
    .innerJoin('comments as c', 'c.id', 's.comment_id')
    .where('r.site_id', '=', siteId)
    .where('r.user_id', '=', userId)
    .where('r.email_verified', '=', 1)
    .where('a.confirmed_at', 'is not', null)
    .where('s.confirmed_at', 'is not', null)
    .where('c.site_id', '=', siteId)
    .where('c.author_ref', 'is', null)
    .where('c.is_deleted', '=', 0);
}

export async function claimableCount(db: Kysely<Database>, siteId: string, user: ReaderRow): Promise<number> {
  if (!isOwnAccount(user.external_id)) return 0;
  const row = await claimableIds(db, siteId, user.id)
    .select((eb) => eb.fn.count('c.id').distinct().as('n'))
    .executeTakeFirstOrThrow();
  return toCount(row.n);
}

/**
 * Makes the reader's claimable guest comments theirs, under their name, in one statement: the
 * per-author counts follow by triggers (migration 0031), and lists and cached comments are told.
 */
export async function claimGuestComments(db: Db, caller: Caller): Promise<{ claimed: number }> {
  const { site, user } = await readerOf(db, caller);
  if (!isOwnAccount(user.external_id)) return { claimed: 0 };
  const result = await db.kysely
    .updateTable('comments')
    .set({ author_ref: user.id, author_name: user.name })
    .where('id', 'in', claimableIds(db.kysely, site.id, user.id).select('c.id'))
    .where('author_ref', 'is', null)
    .executeTakeFirst();
  const claimed = Number(result.numUpdatedRows);
  // Any thread of the site may hold one of them.
  if (claimed > 0) db.changes.siteChanged(site.id);
  return { claimed };
}
