import type { Caller } from '../auth/caller.ts';
import { grants, requireSiteCapability } from '../auth/management.ts';
import { nowIso } from '../clock.ts';
import { commentWithSite } from '../comments/service.ts';
import { cleanText } from '../comments/text.ts';
import type { Db } from '../db/connect.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import { describeActors } from '../moderation/actors.ts';
import { queueItems } from '../moderation/queue.ts';
import { applyModeration, moderatorOf } from '../moderation/service.ts';
import { signInMethodsOf } from '../readers/me/sign-in-methods.ts';
import { isOwnAccount } from '../readers/sign-in.ts';
import type { Site } from '../sites/repository.ts';
import { listBans } from './bans.ts';
import { notesOf, siteUser } from './repository.ts';
import { MAX_NOTE } from './schemas.ts';

const RECENT_COMMENTS = 10;
/** Comments of a user moderated per read of their ids (each in its own transaction). */
const MODERATE_BATCH = 100;

/** Everything a moderator looks at before acting on a user: record, recent comments, bans, notes. */
export async function commenterProfile(db: Db, site: Site, userId: string) {
  const user = await siteUser(db, site, userId);
  const [counts, recent, bans, notes, methods] = await Promise.all([
    db.kysely.selectFrom('author_counts').select(['published', 'pending', 'removed', 'spam']).where('site_id', '=', site.id).where('author_ref', '=', userId).executeTakeFirst(),
    db.kysely
      .selectFrom('comments')
      .select('id')
      .where('site_id', '=', site.id)
      .where('author_ref', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(RECENT_COMMENTS)
      .execute(),
    listBans(db, site, { user_id: userId, limit: 100 }),
    notesOf(db, site, userId),
    signInMethodsOf(db.kysely, site.id, userId),
  ]);
  return {
    id: user.id,
    external_id: user.external_id,
    name: user.name,
    avatar_url: user.avatar_url,
    labels: JSON.parse(user.labels) as string[],
    created_at: user.created_at,
    first_comment_at: user.first_comment_at,
    erased_at: user.erased_at,
    own_account: isOwnAccount(user.external_id),
    // How they sign in, not where: their addresses are theirs to see.
    sign_in_methods: methods.map((method) => ({ type: method.type, provider_name: method.provider_name, created_at: method.created_at, last_used_at: method.last_used_at })),
    comments: {
      published: Number(counts?.published ?? 0),
      pending: Number(counts?.pending ?? 0),
      removed: Number(counts?.removed ?? 0),
      spam: Number(counts?.spam ?? 0),
    },
    recent_comments: await queueItems(db, recent.map((row) => row.id)),
    bans: bans.bans,
    notes,
  };
}

export async function addNote(db: Db, caller: Caller, site: Site, userId: string, body: string) {
  await siteUser(db, site, userId);
  const note = { id: newId('note'), site_id: site.id, user_id: userId, body: cleanText('body/body', body, MAX_NOTE), created_by: moderatorOf(caller).id, created_at: nowIso() };
  await db.kysely.insertInto('commenter_notes').values(note).execute();
  const actors = await describeActors(db.kysely, [note.created_by]);
  return { id: note.id, body: note.body, created_by: actors(note.created_by), created_at: note.created_at };
}

/** A note goes by its author's hand, or an admin's (owners, admins, admin keys): a moderator cannot silence another's. */
export async function deleteNote(db: Db, caller: Caller, site: Site, userId: string, noteId: string) {
  const notes = await notesOf(db, site, userId);
  const note = notes.find((one) => one.id === noteId);
  if (!note) throw new AppError('not_found', `No note ${noteId} on this user`);
  if (note.created_by.id !== moderatorOf(caller).id && !grants(requireSiteCapability(caller, site, 'moderate'), 'administer')) {
    throw new AppError('forbidden', "Only the note's author or an owner or admin can delete it");
  }
  await db.kysely.deleteFrom('commenter_notes').where('id', '=', noteId).execute();
  return note;
}

/**
 * Removes (or marks as spam) every comment of a user on the site, each as the moderation endpoint
 * would (log entry and events per comment). Returns how many changed.
 */
export async function moderateUserComments(db: Db, caller: Caller, site: Site, userId: string, action: 'remove' | 'spam', reason: string | null) {
  await siteUser(db, site, userId);
  const moderator = moderatorOf(caller);
  const target = action === 'remove' ? 'removed' : 'spam';
  let moderated = 0;
  let after = '';
  for (;;) {
    const batch = await db.kysely
      .selectFrom('comments')
      .select('id')
      .where('site_id', '=', site.id)
      .where('author_ref', '=', userId)
      .where('status', '<>', target)
      .where('id', '>', after)
      .orderBy('id')
      .limit(MODERATE_BATCH)
      .execute();
    for (const { id } of batch) {
      const { comment } = await commentWithSite(db, id);
      const result = await applyModeration(db, moderator, comment, site, action, reason);
      if (result.status === target) moderated += 1;
    }
    if (batch.length < MODERATE_BATCH) return { user_id: userId, action, moderated };
    after = batch[batch.length - 1].id;
  }
}
