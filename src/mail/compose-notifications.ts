import type { Kysely } from 'kysely';
import type { MailConfig } from '../config.ts';
import type { Database } from '../db/schema.ts';
import { siteIdsOf } from '../staff/repository.ts';
import { commentLink, excerpt, LISTED, publicComments, render, sourceText, voiceFor, type Composed, type MailRow, type Part, type Sender } from './compose-parts.ts';
import type { DigestMailData, StaffDigestMailData } from './digests.ts';
import { unsubscribeUrl, type UnsubscribeTarget } from './links.ts';
import { queueUrl } from './moderators.ts';
import type { NotificationMailData } from './notification-mails.ts';
import { shownName } from './shown-name.ts';
import type { MailKey, Voice } from './words.ts';

/** A moderation notification's data: what was decided and why. */
type Decision = { action?: string; reason?: string | null };

/** The subject of a decision's mail, also its line in a digest. */
const DECISION_SUBJECT: Record<string, MailKey> = {
  held: 'notice.heldSubject',
  approved: 'notice.approvedSubject',
  removed: 'notice.removedSubject',
  spam: 'notice.spamSubject',
  contest_upheld: 'notice.upheldSubject',
};
const DECISION_INTRO: Record<string, MailKey> = {
  held: 'notice.heldIntro',
  approved: 'notice.approvedIntro',
  removed: 'notice.removedIntro',
  spam: 'notice.spamIntro',
  contest_upheld: 'notice.upheldIntro',
};
/** Decisions a reader may contest (contests.ts takes a comment now held, removed or spam). */
const CONTESTABLE = new Set(['held', 'removed', 'spam']);

/** A reader's address and language, for the mails of their notifications. */
async function readerOf(db: Kysely<Database>, addressId: string, userId: string) {
  const address = await db.selectFrom('mail_addresses').select(['id', 'link_key']).where('id', '=', addressId).executeTakeFirst();
  const reader = await db.selectFrom('site_users').select('language').where('id', '=', userId).executeTakeFirst();
  return address && reader ? { address, language: reader.language } : null;
}

function linksOf(mail: MailConfig, address: { id: string; link_key: string }) {
  return (scope: UnsubscribeTarget['scope'], target: string) => unsubscribeUrl(mail.publicUrl, address.link_key, { address: address.id, scope, target });
}

/**
 * A reader's mails about a followed page, rolled into one: its new comments the public still sees,
 * in the order they came, each with who wrote it, its text and its link; then the links that stop
 * following the page (also the one-click unsubscribe), stop notification mails, or stop all mail.
 */
export async function composeFollowed(db: Kysely<Database>, mail: MailConfig, rows: MailRow[], sender: Sender): Promise<Composed | null> {
  const wanted = rows.map((row) => JSON.parse(row.data) as NotificationMailData);
  const first = wanted[0];
  const notified = await db.selectFrom('notifications').select(['comment_id', 'thread_id']).where('id', 'in', wanted.map((w) => w.notification_id)).execute();
  const comments = notified.length === 0 ? [] : await publicComments(db, [...new Set(notified.map((n) => n.comment_id))]);
  const reader = await readerOf(db, first.address_id, first.user_id);
  if (comments.length === 0 || reader === null) return null;
  const follow = await db.selectFrom('follows').select('id').where('user_id', '=', first.user_id).where('thread_id', '=', notified[0].thread_id).executeTakeFirst();
  const voice = voiceFor(sender, reader.language);
  const { say } = voice;
  const link = linksOf(mail, reader.address);
  const page = shownName(comments[0].title ?? '', comments[0].url_key);
  const parts: Part[] = [];
  for (const comment of comments.slice(0, LISTED)) {
    parts.push({ p: say('notice.followedBy', { name: comment.author_name }) }, { quote: excerpt(sourceText(comment.content, comment.mentions)) }, { link: say('notice.followedOpen'), href: commentLink(comment.url_key, comment.id) });
  }
  if (comments.length > LISTED) parts.push({ p: say('notice.followedMore', { count: comments.length - LISTED }) });
  const stop = link('notifications', first.user_id);
  const unfollow = follow ? link('follow', follow.id) : null;
  parts.push({ p: say('notice.followedWhy') });
  if (unfollow) parts.push({ link: say('notice.unfollow'), href: unfollow });
  parts.push({ link: say('notice.stopMails'), href: stop }, { link: say('unsubscribeAll'), href: link('all', '') });
  return { senderName: sender.name, subject: say('notice.followedSubject', { count: comments.length, page }), ...render(parts, voice), unsubscribe: unfollow ?? stop };
}

/** How to contest a decision: from the comment's page, and through the site's contact (an https page or a mailto: link) when it gave one. */
async function contestParts(db: Kysely<Database>, siteId: string | null, { say }: Voice): Promise<Part[]> {
  const site = siteId === null ? undefined : await db.selectFrom('sites').select('contact').where('id', '=', siteId).executeTakeFirst();
  return site?.contact ? [{ p: say('notice.contestWithContact') }, { link: say('notice.contact'), href: site.contact }] : [{ p: say('notice.contest') }];
}

/**
 * A moderator's decision on a reader's comment, told to its author: what was decided, their comment,
 * the reason the moderator gave, and, for a decision that hides it, how they may contest it.
 */
export async function composeNotice(db: Kysely<Database>, mail: MailConfig, rows: MailRow[], sender: Sender): Promise<Composed | null> {
  const data = JSON.parse(rows[0].data) as NotificationMailData;
  const notice = await db
    .selectFrom('notifications as n')
    .innerJoin('comments as c', 'c.id', 'n.comment_id')
    .innerJoin('threads as t', 't.id', 'n.thread_id')
    .select(['n.data', 'c.id', 'c.content', 'c.mentions', 'c.is_deleted', 't.url_key', 't.title'])
    .where('n.id', '=', data.notification_id)
    .executeTakeFirst();
  const reader = await readerOf(db, data.address_id, data.user_id);
  const decision = notice ? (JSON.parse(notice.data) as Decision) : {};
  if (!notice || notice.is_deleted || reader === null || decision.action === undefined || !(decision.action in DECISION_SUBJECT)) return null;
  const voice = voiceFor(sender, reader.language);
  const { say } = voice;
  const link = linksOf(mail, reader.address);
  const page = shownName(notice.title ?? '', notice.url_key);
  const parts: Part[] = [{ p: say(DECISION_INTRO[decision.action]) }, { p: say('notice.yourComment') }, { quote: excerpt(sourceText(notice.content, notice.mentions)) }];
  if (decision.reason) parts.push({ p: say('notice.reason', { reason: decision.reason }) });
  if (CONTESTABLE.has(decision.action)) parts.push(...(await contestParts(db, rows[0].site_id, voice)));
  const stop = link('notifications', data.user_id);
  parts.push(
    { link: say('notice.open'), href: commentLink(notice.url_key, notice.id) },
    { p: say('notice.why') },
    { link: say('notice.stopMails'), href: stop },
    { link: say('unsubscribeAll'), href: link('all', '') },
  );
  return { senderName: sender.name, subject: say(DECISION_SUBJECT[decision.action], { page }), ...render(parts, voice), unsubscribe: stop };
}

/** What a digest lists of one notification; nothing for one about a comment the public no longer sees. */
function digestItem(voice: Voice, item: { kind: string; data: string; comment_id: string; author_name: string; content: string | null; mentions: string; url_key: string; title: string | null; visible: boolean }): Part[] {
  const { say } = voice;
  const page = shownName(item.title ?? '', item.url_key);
  const href = commentLink(item.url_key, item.comment_id);
  if (item.kind === 'moderation') {
    const decision = JSON.parse(item.data) as Decision;
    if (decision.action === undefined || !(decision.action in DECISION_SUBJECT)) return [];
    return [{ p: say(DECISION_SUBJECT[decision.action], { page }) }, ...(decision.reason ? [{ p: say('notice.reason', { reason: decision.reason }) }] : []), { link: say('digest.open'), href }];
  }
  const line: Record<string, MailKey> = { reply: 'digest.reply', mention: 'digest.mention', followed_thread: 'digest.followed' };
  if (!item.visible || !(item.kind in line)) return [];
  return [{ p: say(line[item.kind], { name: item.author_name, page }) }, { quote: excerpt(sourceText(item.content, item.mentions)) }, { link: say('digest.open'), href }];
}

/**
 * A reader's digest: the notifications it took (marked mailed with its time: digests.ts), oldest
 * first, each with what happened, where, and its link; the first LISTED of them, the others counted.
 * The stop link (also the one-click unsubscribe) turns their notification mails off.
 */
export async function composeDigest(db: Kysely<Database>, mail: MailConfig, rows: MailRow[], sender: Sender): Promise<Composed | null> {
  const data = JSON.parse(rows[0].data) as DigestMailData;
  const reader = await readerOf(db, data.address_id, data.user_id);
  if (reader === null || rows[0].site_id === null) return null;
  const notifications = await db
    .selectFrom('notifications as n')
    .innerJoin('comments as c', 'c.id', 'n.comment_id')
    .innerJoin('threads as t', 't.id', 'n.thread_id')
    .select(['n.kind', 'n.data', 'n.comment_id', 'c.author_name', 'c.content', 'c.mentions', 'c.status', 'c.moderation_status', 'c.is_deleted', 't.url_key', 't.title'])
    .where('n.site_id', '=', rows[0].site_id)
    .where('n.user_id', '=', data.user_id)
    .where('n.mailed_at', '=', data.mailed_at)
    .orderBy('n.id')
    .execute();
  const voice = voiceFor(sender, reader.language);
  const { say } = voice;
  const items = notifications
    .map((n) => digestItem(voice, { ...n, visible: n.status === 'published' && n.moderation_status === null && !n.is_deleted }))
    .filter((parts) => parts.length > 0);
  if (items.length === 0) return null;
  const link = linksOf(mail, reader.address);
  const stop = link('notifications', data.user_id);
  const parts: Part[] = items.slice(0, LISTED).flat();
  if (items.length > LISTED) parts.push({ p: say('digest.more', { count: items.length - LISTED }) });
  parts.push({ p: say(data.frequency === 'weekly' ? 'digest.whyWeekly' : 'digest.whyDaily') }, { link: say('notice.stopMails'), href: stop }, { link: say('unsubscribeAll'), href: link('all', '') });
  const subject = say(data.frequency === 'weekly' ? 'digest.weeklySubject' : 'digest.dailySubject', { count: items.length, site: sender.name });
  return { senderName: sender.name, subject, ...render(parts, voice), unsubscribe: stop };
}

/** The sites a staff member moderates, with their names: every site of their accounts, or those a moderator is limited to. */
async function moderatedSites(db: Kysely<Database>, staffId: string) {
  const memberships = await db.selectFrom('staff_memberships').select(['account_id', 'site_ids']).where('staff_id', '=', staffId).execute();
  if (memberships.length === 0) return [];
  const sites = await db.selectFrom('sites').select(['id', 'name', 'account_id']).where('account_id', 'in', memberships.map((m) => m.account_id)).orderBy('name').execute();
  return sites.filter((site) => memberships.some((m) => m.account_id === site.account_id && (siteIdsOf(m.site_ids)?.includes(site.id) ?? true)));
}

/**
 * A staff member's daily moderation digest, in their language: per site they moderate, how many
 * comments wait for approval (and since when the oldest has, in their time zone), how many are
 * flagged if they chose flags too, and the link to its queue. Null when nothing waits anywhere.
 */
export async function composeStaffDigest(db: Kysely<Database>, mail: MailConfig, rows: MailRow[], sender: Sender): Promise<Composed | null> {
  const data = JSON.parse(rows[0].data) as StaffDigestMailData;
  const staff = await db.selectFrom('staff').select(['moderation_mail', 'language', 'time_zone']).where('id', '=', data.staff_id).executeTakeFirst();
  if (!staff || staff.moderation_mail === 'off') return null;
  const sites = await moderatedSites(db, data.staff_id);
  if (sites.length === 0) return null;
  const siteIds = sites.map((site) => site.id);
  const pending = await db
    .selectFrom('comments')
    .select(['site_id', (eb) => eb.fn.countAll<number | string>().as('count'), (eb) => eb.fn.min('created_at').as('oldest')])
    .where('site_id', 'in', siteIds)
    .where('status', '=', 'pending')
    .where('is_deleted', '=', 0)
    .groupBy('site_id')
    .execute();
  const flagged =
    staff.moderation_mail === 'all'
      ? await db
          .selectFrom('comments')
          .select(['site_id', (eb) => eb.fn.countAll<number | string>().as('count')])
          .where('site_id', 'in', siteIds)
          .where('status', '=', 'published')
          .where('flag_count', '>', 0)
          .where('is_deleted', '=', 0)
          .groupBy('site_id')
          .execute()
      : [];
  const pendingOf = new Map(pending.map((row) => [row.site_id, { count: Number(row.count), oldest: row.oldest as string }]));
  const flaggedOf = new Map(flagged.map((row) => [row.site_id, Number(row.count)]));
  const voice = voiceFor(sender, staff.language);
  const { say } = voice;
  const date = new Intl.DateTimeFormat(voice.locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: staff.time_zone ?? 'UTC' });
  const parts: Part[] = [];
  let waiting = 0;
  for (const site of sites) {
    const waits = pendingOf.get(site.id);
    const flags = flaggedOf.get(site.id) ?? 0;
    if (!waits && flags === 0) continue;
    const name = shownName(site.name, site.id);
    if (waits) {
      waiting += waits.count;
      parts.push({ p: say('digest.staffPending', { site: name, count: waits.count }) }, { p: say('digest.staffOldest', { date: date.format(new Date(waits.oldest)) }) });
    }
    if (flags > 0) parts.push({ p: say('digest.staffFlagged', { site: name, count: flags }) });
    parts.push({ link: say('digest.staffQueue', { site: name }), href: queueUrl(mail.publicUrl, site.id, waits ? 'pending' : 'flagged') });
  }
  if (parts.length === 0) return null;
  parts.push({ p: say('digest.staffWhy') });
  return { senderName: sender.name, subject: say('digest.staffSubject', { count: waiting }), ...render(parts, voice), unsubscribe: null };
}
