import type { Locale } from '../i18n/locales.ts';
import { sql, type Kysely, type Transaction } from 'kysely';
import { actorRef, isModerator, requireCredential, type Caller, type SiteOwnership } from '../auth/caller.ts';
import type { Db } from '../db/connect.ts';
import type { DialectName } from '../db/dialect.ts';
import type { Database } from '../db/schema.ts';
import { AppError, invalid } from '../errors.ts';
import { eventRowAlone, recordEvent, withEvents, type DomainEvent } from '../events/record.ts';
import { newId } from '../ids.ts';
import { assertNotBanned } from '../moderation/bans.ts';
import { findSite, findSiteLockingAuthor, reachedSite, siteOrNotFound, type Site } from '../sites/repository.ts';
import { findComment, findThread, hasCommentsOnlyAuthorSees, insertComment, isVisible, listTopLevel, marksOf } from './repository.ts';
import { insertCountedTopLevel, listedPublicly, refreshListing, threadClosed, threadForNewComment } from './listing.ts';
import { standingOf } from './standing.ts';
import { commentsOf, type PlacedPage, type SharedAnswer, type SharedPage } from './public-bytes.ts';
import type { CachedList, ListQuery } from './public-list.ts';
import { marksOfReader, type KnownMarks } from './reader-marks.ts';
import { readReplyTrees } from './reply-trees.ts';
import type { RevisionCache } from './revision-cache.ts';
import { MAX_AUTHOR_NAME, MAX_CONTENT, cleanText } from './text.ts';
import { assertAllowedHost, threadKey } from './thread-url.ts';
import { readCommentPage, type CommentPage, type SubtreeQuery } from './subtree-page.ts';
import type { CachedResponse } from './response-cache.ts';
import { isEmptyPlaceholder } from './tree.ts';
import { authorBadges } from './badges.ts';
import { assertEditWindowOpen } from './edit-window.ts';
import { keepReplacedText } from './revisions.ts';
import { renderForSite } from '../formatting/render.ts';
import { authorMarks, eventComment, markableRow, NO_COUNTS, toView, type CommentRow, type CommentView, type ViewerMarks } from './view.ts';
import { viewerFor, type Viewer } from './visibility.ts';
import { nowIso } from '../clock.ts';
import { insertNewTopLevel, recordCommentChange, seenByPublic } from '../live/record.ts';
import { queueMentionMails } from '../mail/mentions.ts';
import { queueModerationMails } from '../mail/moderators.ts';
import { queueReplyMail, refuseKeyMailWish, subscribeToReplies } from '../mail/readers.ts';
import type { ConfirmMailLimiter } from '../ratelimits/confirm-mails.ts';
import { screenComment, screenEdit, type FormFields } from '../spam/pipeline.ts';
import type { Signal } from '../spam/signal-log.ts';
import { logClassifierHold } from '../spam/classifier/learning.ts';
import { publishedJob, queueHeldNotice, queuePublished } from '../notifications/hooks.ts';

export interface CommentList {
  comments: CommentPage[];
  total: number;
  page: number;
}

/** A page of top-level comments, each with its visible reply tree (capped), read for this viewer alone. */
async function readList(db: Db, site: SiteOwnership, viewer: Viewer, query: ListQuery): Promise<CommentList> {
  const page = query.page ?? 1;
  const url = threadKey(query.thread_url, 'querystring/thread_url');
  const thread = await findThread(db.kysely, site.id, url.href);
  if (!thread) return { comments: [], total: 0, page };
  const { rows, total } = await listTopLevel(db.kysely, viewer, thread, query.sort ?? 'newest', page, query.limit ?? 20);
  const { roots } = await readReplyTrees(db.kysely, viewer, rows, url.href, query.limit ?? 20, (all) => marksOf(db.kysely, viewer, all.map(markableRow)));
  return { comments: roots.filter((root) => !isEmptyPlaceholder(root)), total, page };
}

/**
 * The site a list is read from; 404 when it is unknown. A session's own site was read with the
 * session (see resolveCaller), so it is not read again: that is a signed-in reader's every list.
 */
async function listedSite(db: Db, caller: Caller, siteId: string): Promise<SiteOwnership> {
  if (caller.kind === 'session' && caller.siteId === siteId) return { id: siteId, accountId: caller.accountId };
  return siteOrNotFound(db.kysely, siteId);
}

/** Whether the reader has comments in the thread that only they see; a session tells when they have none on the site. */
async function mayHaveCommentsOnlyTheySee(db: Db, caller: Caller, siteId: string, threadUrl: string, readerRef: string): Promise<boolean> {
  if (caller.kind === 'session' && !caller.hasCommentsOnlyTheySee) return false;
  return hasCommentsOnlyAuthorSees(db.kysely, siteId, threadUrl, readerRef);
}

/**
 * What a caller reads: an answer read for them alone (`own`), or the public's answer (`shown`) with
 * their marks to lay over it (null for a caller who reads exactly the public's).
 */
export type CallerAnswer<Own> = { own: Own } | { shown: CachedResponse<SharedPage>; marks: ViewerMarks | null };

/**
 * The list for this caller. A reader who moderates nothing here and has no comment in the thread
 * that only they can see (pending, shadow-banned) sees the public's comments: their list is the
 * public one (`publicList`, see public-list.ts) with their own votes, reactions and authorship.
 */
export async function listComments(
  db: Db,
  caller: Caller,
  query: ListQuery,
  publicList: () => Promise<CachedList>,
  keptMarks: RevisionCache<KnownMarks>,
): Promise<CallerAnswer<CommentList>> {
  const site = await listedSite(db, caller, query.site_id);
  const viewer = viewerFor(caller, site);
  // The public, or a credential of another tenant (which reads the site as the public does).
  if (viewer.ref === null) return { shown: await publicList(), marks: null };
  if (viewer.moderator) return { own: await readList(db, site, viewer, query) };
  const threadUrl = threadKey(query.thread_url, 'querystring/thread_url').href;
  if (await mayHaveCommentsOnlyTheySee(db, caller, site.id, threadUrl, viewer.ref)) return { own: await readList(db, site, viewer, query) };
  const shown = await publicList();
  return { shown, marks: await marksOfReader(db.kysely, keptMarks, caller, viewer, commentsOf(shown.page)) };
}

/** A comment (with its thread URL) and its site; 404 when either is unknown. */
export async function commentWithSite(db: Db, id: string) {
  const comment = await findComment(db.kysely, id);
  const site = comment && (await findSite(db.kysely, comment.site_id));
  if (!comment || !site) throw new AppError('not_found', `No comment ${id}`);
  return { comment, site };
}

/** Loads a comment the caller may see, with its site and the caller's view of it. */
export async function visibleComment(db: Db, caller: Caller, id: string) {
  const { comment, site } = await commentWithSite(db, id);
  const viewer = viewerFor(caller, site);
  if (!(await isVisible(db.kysely, viewer, id))) throw new AppError('not_found', `No comment ${id}`);
  return { comment, site, viewer };
}

/**
 * GET /v1/comments/:id for this caller. As with lists, a reader who moderates nothing on the site and
 * has no comment in the thread that only they can see reads the public's answer (`shared`, see
 * public-comment.ts) with their own votes, reactions and authorship laid over it. The site and
 * thread are kept with that answer, so a kept one costs a reader no lookup of the comment.
 */
export async function readComment(
  db: Db,
  caller: Caller,
  id: string,
  query: SubtreeQuery,
  shared: SharedAnswer<PlacedPage>,
  keptMarks: RevisionCache<KnownMarks>,
): Promise<CallerAnswer<CommentPage>> {
  if (caller.kind === 'public') return { shown: await shared.read(), marks: null };
  const kept = shared.kept();
  const found = kept ? undefined : await commentWithSite(db, id);
  const site: SiteOwnership = kept ? kept.page.site : found!.site;
  const viewer = viewerFor(caller, site);
  // A credential of another tenant reads the site as the public does.
  if (viewer.ref === null) return { shown: kept ?? (await shared.read()), marks: null };
  const threadUrl = kept ? kept.page.threadUrl : found!.comment.thread_url;
  if (viewer.moderator || (await mayHaveCommentsOnlyTheySee(db, caller, site.id, threadUrl, viewer.ref))) {
    const { comment } = found ?? (await commentWithSite(db, id));
    if (!(await isVisible(db.kysely, viewer, id))) throw new AppError('not_found', `No comment ${id}`);
    const { page } = await readCommentPage(db.kysely, viewer, comment, query, (rows) => marksOf(db.kysely, viewer, rows.map(markableRow)));
    return { own: page };
  }
  const shown = kept ?? (await shared.read());
  return { shown, marks: await marksOfReader(db.kysely, keptMarks, caller, viewer, commentsOf(shown.page)) };
}

export interface CreateInput extends FormFields {
  thread_url: string;
  site_id: string;
  content: string;
  parent_id?: string | null;
  author_name?: string;
  /** "Email me replies" (mail/readers.ts). */
  notify_replies?: boolean;
  email?: string;
  /** The request's language: the mails to the address it gives speak it. */
  language?: Locale | null;
}

function authorNameFor(caller: Caller, requested: string | undefined): string {
  if (caller.kind === 'session') return caller.userName;
  // Staff write as themselves (POST /api/comments): their name is not theirs to change per comment.
  if (caller.kind === 'staff') return caller.name;
  const fallback = caller.kind === 'key' ? caller.name : 'Anonymous';
  return requested === undefined ? fallback : cleanText('body/author_name', requested, MAX_AUTHOR_NAME);
}

/** Whether the site's moderation mode holds what this caller writes (a new comment, or an edit) for approval. */
function heldForApproval(site: Site, caller: Caller, moderator: boolean): boolean {
  if (moderator) return false;
  return site.moderationMode === 'all' || (site.moderationMode === 'guests' && caller.kind === 'public');
}

/** A new comment's site, author and parent, checked in the order a client is told what is wrong. */
async function checkedPost(trx: Kysely<Database>, dialect: DialectName, caller: Caller, input: CreateInput) {
  refuseKeyMailWish(caller, input);
  const author = actorRef(caller);
  const site = reachedSite(caller.kind === 'public' ? null : caller, await findSiteLockingAuthor(trx, dialect, input.site_id, author), input.site_id);
  if (caller.kind === 'public' && !site.allowGuests) {
    throw new AppError('unauthorized', 'This site does not accept guest comments; sign in to comment');
  }
  const content = cleanText('body/content', input.content, MAX_CONTENT);
  const authorName = authorNameFor(caller, input.author_name);
  const url = threadKey(input.thread_url);
  assertAllowedHost(url, site.domains);
  const moderator = isModerator(caller, site);
  const viewer: Viewer = { ref: author, moderator };
  let parent: (CommentRow & { thread_url: string; thread_closed_at: string | null }) | undefined;
  if (input.parent_id) {
    parent = await findComment(trx, input.parent_id);
    if (!parent || parent.site_id !== site.id || parent.thread_url !== url.href || !(await isVisible(trx, viewer, parent.id))) {
      throw invalid('body/parent_id', 'must be a comment of the same site and thread');
    }
    if (parent.thread_closed_at !== null) throw threadClosed();
  }
  return { site, content, authorName, url, author, moderator, parent };
}

/**
 * Everything, the site and parent included, is read inside the transaction: on SQLite that is the
 * writer's connection, whose page cache the group's own commits do not invalidate, and the site's
 * webhook settings that decide the outbox are the ones the comment commits beside. `confirmMails`
 * counts the confirmation mails of "Email me replies" (null: uncounted).
 */
export async function createComment(db: Db, caller: Caller, input: CreateInput, confirmMails: ConfirmMailLimiter | null = null): Promise<CommentView> {
  // The spam checks' signal of this comment, in their log from its screening on: taken back if the
  // comment is not written, and written to the table once it has committed.
  let signal: Signal | null = null;
  // Filled from the table before the transaction: on PostgreSQL, transactions waiting for that read
  // while holding every connection of the pool would leave it none to run on.
  const signals = await db.spamSignals.ready();
  const written = withEvents(db, async (trx) => {
    const { site, content, authorName, url, author, moderator, parent } = await checkedPost(trx, db.dialect, caller, input);
    const { shadowBanned, record, thread, classifierTotals } = await standingOf(trx, site.id, author, url.href);
    const now = nowIso();
    const id = newId('cmt');
    const screening = await screenComment(trx, signals, { id, site, caller, moderator, authorRef: author, record, content, threadUrl: url.href, form: input, createdAt: now, models: db.classifierModels, classifierTotals });
    const { verdict, heldCopies } = screening;
    signal = screening.signal;
    if (verdict.action === 'reject') throw verdict.problem;
    const status = verdict.action === 'hold' || heldForApproval(site, caller, moderator) ? 'pending' : 'published';
    const moderationStatus = status === 'pending' ? 'pending' : shadowBanned ? 'shadow_banned' : null;
    const listedPublic = parent ? 0 : listedPublicly({ status, moderation_status: moderationStatus });
    const rendered = await renderForSite(trx, site, content);
    const row: CommentRow = {
      id,
      site_id: site.id,
      // A reply's thread is its parent's (checked above); a top-level comment is counted into its own last.
      thread_id: parent ? parent.thread_id : await threadForNewComment(trx, site.id, url.href, thread),
      parent_id: parent?.id ?? null,
      root_id: parent?.root_id ?? id,
      author_ref: author,
      author_name: authorName,
      content,
      content_html: rendered.content_html,
      mentions: JSON.stringify(rendered.mentions),
      author_badges: JSON.stringify(authorBadges(caller, moderator)),
      pinned_at: null,
      status,
      moderation_status: moderationStatus,
      is_deleted: 0,
      is_edited: 0,
      created_at: now,
      updated_at: now,
      listed_public: listedPublic,
      listed_all: parent ? 0 : 1,
      flag_count: 0,
      spam_reasons: verdict.action === 'hold' ? JSON.stringify(verdict.reasons) : null,
    };
    // The outbox and mail rows first; then the writes that lock the thread's row (the insert's trigger
    // moves its listing revision, the count, the live event's number), so that lock is held the least.
    if (caller.kind === 'session' && !caller.hasCommented) await recordFirstComment(trx, site, caller.userId, now);
    // A comment the spam checks held says why (spam_reasons, added to the contract's fields only then).
    const created = { ...eventComment(row, url.href), ...(verdict.action === 'hold' && { spam_reasons: verdict.reasons }) };
    const event: DomainEvent = { accountId: site.accountId, siteId: site.id, type: 'comment.created', data: { comment: created } };
    // A top-level comment the public sees writes its event with it when that queues nothing else.
    const eventWithComment = !parent && listedPublic ? eventRowAlone(trx, event, site) : null;
    if (!eventWithComment) await recordEvent(trx, event, site);
    // Mail rows too: no key of theirs needs the comment's row to exist yet.
    await subscribeToReplies(trx, db.mail, confirmMails, caller, site, row, input);
    if (status === 'pending') await queueModerationMails(trx, db.mail, site, row, { why: 'pending' });
    let replySeen = false;
    if (parent) {
      await insertComment(trx, row);
      await refreshListing(trx, [row.root_id]);
      replySeen = await recordCommentChange(trx, false, row);
    } else if (listedPublic) {
      // Inserted, counted and numbered in one statement: the public sees a top-level comment that is listed.
      if ((await insertNewTopLevel(trx, { row, job: publishedJob(trx, row), event: eventWithComment })).closed) throw threadClosed();
    } else {
      await insertCountedTopLevel(trx, row, listedPublic);
    }
    if (verdict.action === 'hold') await logClassifierHold(trx, row, verdict.reasons);
    // A reply the public sees: its parent's author may want a mail (not if the reply's own address
    // is theirs: a guest answering their own comment, known by the subscription made above).
    if (replySeen) await queueReplyMail(trx, db.mail, row);
    // Readers it mentions, and the thread's followers, hear of it once the public sees it (then, or when it is approved).
    if (parent ? replySeen : listedPublic) await queueMentionMails(trx, db.mail, row);
    // (A top-level comment's fan-out job went in with it.)
    if (replySeen) await queuePublished(trx, row);
    if (status === 'pending') await queueHeldNotice(trx, row);
    return { created: toView({ ...row, ...NO_COUNTS }, url.href, authorMarks(author)), siteId: site.id, threadUrl: url.href, heldCopies };
  });
  const { created, siteId, threadUrl, heldCopies } = await written.catch((error: unknown) => {
    if (signal) db.spamSignals.log.remove(signal);
    throw error;
  });
  if (signal) db.spamSignals.committed(signal);
  db.changes.threadChanged(siteId, threadUrl);
  for (const copy of heldCopies) if (copy.threadUrl !== threadUrl) db.changes.threadChanged(copy.siteId, copy.threadUrl);
  return created;
}

/** user.created fires once per site user: on their first comment there. */
async function recordFirstComment(trx: Transaction<Database>, site: Site, userId: string, now: string): Promise<void> {
  const first = await trx
    .updateTable('site_users')
    .set({ first_comment_at: now })
    .where('id', '=', userId)
    .where('first_comment_at', 'is', null)
    .executeTakeFirst();
  if (Number(first.numUpdatedRows) === 0) return;
  const user = await trx.selectFrom('site_users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
  await recordEvent(
    trx,
    {
      accountId: site.accountId,
      siteId: site.id,
      type: 'user.created',
      data: { user: { id: user.id, external_id: user.external_id, name: user.name, avatar_url: user.avatar_url, created_at: user.created_at } },
    },
    site,
  );
}

/** A comment the caller may act on as its author or a moderator; 404 when they cannot see it. */
async function writableComment(db: Db, caller: Caller, id: string) {
  requireCredential(caller);
  const found = await visibleComment(db, caller, id);
  if (found.viewer.ref === null) throw new AppError('not_found', `No comment ${id}`);
  return { ...found, isAuthor: found.comment.author_ref !== null && found.comment.author_ref === found.viewer.ref };
}

/**
 * Where the site holds new comments by this caller for approval, an edit is held too: a comment the
 * public sees goes back to pending, or approving it once would let any later text reach the public.
 * Decided in the statement, on the row as it is then (a pending, shadow-banned or removed one stays so).
 */
const PUBLIC_NOW = sql<boolean>`(status = 'published' and moderation_status is null)`;
const HELD_AGAIN = {
  status: sql<string>`case when ${PUBLIC_NOW} then 'pending' else status end`,
  moderation_status: sql<string | null>`case when ${PUBLIC_NOW} then 'pending' else moderation_status end`,
};

export async function editComment(db: Db, caller: Caller, id: string, rawContent: string): Promise<CommentView> {
  const { comment, site, viewer, isAuthor } = await writableComment(db, caller, id);
  if (!isAuthor) throw new AppError('forbidden', 'Only the author can edit a comment');
  if (comment.is_deleted) throw new AppError('conflict', 'A deleted comment cannot be edited');
  if (!viewer.moderator) assertEditWindowOpen(site, comment.created_at, Date.now());
  const content = cleanText('body/content', rawContent, MAX_CONTENT);
  const held = heldForApproval(site, caller, viewer.moderator);
  const edited = await withEvents(db, async (trx) => {
    await assertNotBanned(trx, site.id, comment.author_ref);
    const verdict = await screenEdit(trx, { site, caller, moderator: viewer.moderator, authorRef: comment.author_ref, content, before: comment });
    if (verdict.action === 'reject') throw verdict.problem;
    const hold = held || verdict.action === 'hold';
    const before = await seenByPublic(trx, comment);
    const rendered = await renderForSite(trx, site, content);
    const now = nowIso();
    await keepReplacedText(db, trx, id, viewer.ref, now);
    const updated = await trx
      .updateTable('comments')
      .set({ content, content_html: rendered.content_html, mentions: JSON.stringify(rendered.mentions), is_edited: 1, updated_at: now, ...(hold && HELD_AGAIN), ...(verdict.action === 'hold' && { spam_reasons: JSON.stringify(verdict.reasons) }) })
      .where('id', '=', id)
      .where('is_deleted', '=', 0)
      .returningAll()
      .executeTakeFirst();
    if (!updated) throw new AppError('conflict', 'A deleted comment cannot be edited');
    // Held, it may leave the public's list (or take its deleted top-level comment out of it).
    if (hold) await refreshListing(trx, [updated.root_id]);
    // Readers the edit newly mentions hear of it, if the public sees it (a held edit: once approved).
    if (await recordCommentChange(trx, before, updated)) {
      await queueMentionMails(trx, db.mail, updated, comment);
      if (updated.mentions !== comment.mentions) await queuePublished(trx, updated);
    }
    // Held again: its author learns it waits for a moderator.
    if (updated.status === 'pending' && comment.status !== 'pending') await queueHeldNotice(trx, updated);
    await recordEvent(trx, { accountId: site.accountId, siteId: site.id, type: 'comment.updated', data: { comment: eventComment(updated, comment.thread_url) } }, site);
    return toView({ ...comment, ...updated }, comment.thread_url, authorMarks(comment.author_ref));
  });
  db.changes.threadChanged(site.id, comment.thread_url);
  return edited;
}

/** Soft delete: content gone, row kept as a placeholder. Deleting again answers the same. */
export async function deleteComment(db: Db, caller: Caller, id: string): Promise<CommentView> {
  const { comment, site, viewer, isAuthor } = await writableComment(db, caller, id);
  if (!isAuthor && !viewer.moderator) throw new AppError('forbidden', 'Only the author or a moderator can delete a comment');
  const deletedView = await withEvents(db, async (trx) => {
    await assertNotBanned(trx, site.id, viewer.ref);
    const before = await seenByPublic(trx, comment);
    const deleted = await trx
      .updateTable('comments')
      .set({ is_deleted: 1, content: null, content_html: null, mentions: '[]', updated_at: nowIso() })
      .where('id', '=', id)
      .where('is_deleted', '=', 0)
      .returningAll()
      .executeTakeFirst();
    if (!deleted) return toView(comment, comment.thread_url, authorMarks(viewer.ref));
    // Its earlier versions go with its text: what its author took back is not kept behind it.
    await trx.deleteFrom('comment_revisions').where('comment_id', '=', id).execute();
    await refreshListing(trx, [deleted.root_id]);
    await recordCommentChange(trx, before, deleted);
    await recordEvent(trx, { accountId: site.accountId, siteId: site.id, type: 'comment.deleted', data: { comment: eventComment(deleted, comment.thread_url) } }, site);
    return toView({ ...comment, ...deleted }, comment.thread_url, authorMarks(viewer.ref));
  });
  db.changes.threadChanged(site.id, comment.thread_url);
  return deletedView;
}
