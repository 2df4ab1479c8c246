import type { Caller } from '../../auth/caller.ts';
import { cleanText, MAX_AUTHOR_NAME } from '../../comments/text.ts';
import type { Db } from '../../db/connect.ts';
import { forUpdate } from '../../db/dialect.ts';
import { AppError, invalid } from '../../errors.ts';
import type { Site } from '../../sites/repository.ts';
import { isOwnAccount } from '../sign-in.ts';
import { claimableCount } from './claim.ts';
import { readerOf, requireOwn, type ReaderRow } from './reader.ts';
import { signInMethodsOf } from './sign-in-methods.ts';

const SITE_MANAGES_IT = "This account is the site's: its name and sign-in are managed by the site";

async function pageOf(db: Db, site: Site, user: ReaderRow) {
  const [methods, claimable] = await Promise.all([signInMethodsOf(db.kysely, site.id, user.id), claimableCount(db.kysely, site.id, user)]);
  return {
    user: { id: user.id, name: user.name, avatar_url: user.avatar_url, own_account: isOwnAccount(user.external_id) },
    email: user.email,
    sign_in_methods: methods,
    mail: { notify_replies: user.notify_replies === 1, mention_mail: user.mention_mail === 1 },
    claimable_guest_comments: claimable,
    erase_after: user.erase_after,
  };
}

/** GET /v1/me: the signed-in reader's own page. */
export async function myPage(db: Db, caller: Caller) {
  const { site, user } = await readerOf(db, caller);
  return pageOf(db, site, user);
}

/**
 * PATCH /v1/me. A reader renames themselves, and their earlier comments with them, as readers of
 * Disqus or Remark42 expect (a comment shows who wrote it as they are called now): one statement,
 * whose triggers move the lists' revisions; cached answers of every thread of the site are told.
 * Any reader turns their mention mail on or off.
 */
export async function changeMe(db: Db, caller: Caller, change: { name?: string; mention_mail?: boolean }) {
  const { site, user } = await readerOf(db, caller);
  if (change.name === undefined && change.mention_mail === undefined) throw invalid('body', 'must name what changes: name or mention_mail');
  if (change.name !== undefined) requireOwn(user, SITE_MANAGES_IT);
  const name = change.name === undefined ? user.name : cleanText('body/name', change.name, MAX_AUTHOR_NAME);
  const mentionMail = change.mention_mail === undefined ? user.mention_mail : change.mention_mail ? 1 : 0;
  const renamed = await db.kysely.transaction().execute(async (trx) => {
    await trx.updateTable('site_users').set({ name, mention_mail: mentionMail }).where('id', '=', user.id).execute();
    if (change.name === undefined) return 0;
    const comments = await trx.updateTable('comments').set({ author_name: name }).where('site_id', '=', site.id).where('author_ref', '=', user.id).where('author_name', '<>', name).executeTakeFirst();
    return Number(comments.numUpdatedRows);
  });
  if (renamed > 0) db.changes.siteChanged(site.id);
  return pageOf(db, site, { ...user, name, mention_mail: mentionMail });
}

/** Removes one of the reader's ways of signing in, never the last one (409): they could not come back. */
export async function removeSignInMethod(db: Db, caller: Caller, methodId: string) {
  const { site, user } = await readerOf(db, caller);
  requireOwn(user, SITE_MANAGES_IT);
  await db.kysely.transaction().execute(async (trx) => {
    // Two removals at once must not both see another method left.
    await forUpdate(db.dialect, trx.selectFrom('site_users').select('id').where('id', '=', user.id)).execute();
    const methods = await signInMethodsOf(trx, site.id, user.id);
    if (!methods.some((method) => method.id === methodId)) throw new AppError('not_found', `No sign-in method ${methodId} of yours`);
    if (methods.length === 1) throw new AppError('conflict', 'This is your only way to sign in: add another one before removing it');
    await trx.deleteFrom('reader_identities').where('id', '=', methodId).where('user_id', '=', user.id).execute();
  });
  return pageOf(db, site, user);
}
