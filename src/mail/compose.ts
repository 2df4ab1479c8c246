import type { Kysely, Selectable } from 'kysely';
import type { MailConfig } from '../config.ts';
import type { Database, MailOutboxTable } from '../db/schema.ts';
import { unsubscribeUrl, type UnsubscribeTarget } from './links.ts';
import { dashboardUrl, queueUrl, type ModerationMailData } from './moderators.ts';
import { shownName } from './shown-name.ts';
import { MAIL_STRINGS as S } from './strings.ts';
import { escapeHtml } from '../formatting/escape.ts';
import { MENTION } from '../formatting/mentions.ts';
import type { Mention } from '../formatting/render.ts';
import type { MentionMailData } from './mentions.ts';

export type MailRow = Selectable<MailOutboxTable>;

/** A mail ready for the SMTP server, or null when nothing of its cause is left to tell (the reply was hidden since). */
export interface Composed {
  senderName: string;
  subject: string;
  text: string;
  html: string;
  /** RFC 8058: where a mail client's "unsubscribe" posts. */
  unsubscribe: string | null;
}

const EXCERPT = 500;

function excerpt(text: string | null): string {
  const whole = text ?? '';
  return whole.length > EXCERPT ? `${whole.slice(0, EXCERPT)}…` : whole;
}

/** A comment's source as a mail quotes it: its mentions as the names they show (`@Name`), the rest as written. */
function sourceText(content: string | null, mentions: string): string {
  const names = new Map((JSON.parse(mentions) as Mention[]).map((mention) => [mention.user_id, mention.name]));
  return (content ?? '').replace(MENTION, (_whole, typed: string, userId: string) => `@${names.get(userId) ?? typed}`);
}

/** Where a comment is read on its page: the widget there scrolls to the comment the fragment names. */
function commentLink(threadUrl: string, commentId: string): string {
  return `${threadUrl}#parley_comment=${commentId}`;
}

/** A body as parts: paragraphs of text, quotes, links and a code to type, written out as plain text and as simple HTML. */
type Part = { p: string } | { quote: string } | { link: string; href: string } | { code: string };

function textOf(part: Part): string {
  if ('p' in part) return part.p;
  if ('quote' in part) return part.quote.replace(/^/gm, '> ');
  if ('code' in part) return `    ${part.code}`;
  return `${part.link}: ${part.href}`;
}

function htmlOf(part: Part): string {
  if ('p' in part) return `<p>${escapeHtml(part.p)}</p>`;
  if ('quote' in part) return `<blockquote style="margin:0 0 1em;padding-left:1em;border-left:3px solid #ccc;white-space:pre-wrap">${escapeHtml(part.quote)}</blockquote>`;
  if ('code' in part) return `<p style="font-size:2em;font-weight:bold;letter-spacing:.2em;font-family:monospace">${escapeHtml(part.code)}</p>`;
  return `<p><a href="${escapeHtml(part.href)}">${escapeHtml(part.link)}</a></p>`;
}

function render(parts: Part[]): { text: string; html: string } {
  const text = parts.map(textOf).join('\n\n');
  const html = parts.map(htmlOf).join('\n');
  return { text: `${text}\n`, html: `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">\n${html}\n</body></html>\n` };
}

/** What a mail shows for a site it cannot name. */
const NO_SITE_NAME = 'Parley';

/** The site's name as the sender's name and in subjects: made safe to show (shown-name.ts). */
async function siteName(db: Kysely<Database>, siteId: string | null): Promise<string> {
  if (siteId === null) return NO_SITE_NAME;
  const site = await db.selectFrom('sites').select('name').where('id', '=', siteId).executeTakeFirst();
  return shownName(site?.name ?? '', NO_SITE_NAME);
}

/** The comments of a mail that the public still sees, oldest first, with their thread: a mail leaves out what was hidden since it was queued. */
function publicComments(db: Kysely<Database>, ids: string[]) {
  return db
    .selectFrom('comments as c')
    .innerJoin('threads as t', 't.id', 'c.thread_id')
    .select(['c.id', 'c.author_name', 'c.content', 'c.mentions', 't.url_key', 't.title'])
    .where('c.id', 'in', ids)
    .where('c.status', '=', 'published')
    .where('c.moderation_status', 'is', null)
    .where('c.is_deleted', '=', 0)
    .orderBy('c.created_at')
    .execute();
}

/** Replies of a thread to one address, rolled into one mail: those the public still sees. */
async function composeReplies(db: Kysely<Database>, mail: MailConfig, rows: MailRow[], sender: string): Promise<Composed | null> {
  const wanted = rows.map((row) => JSON.parse(row.data) as { reply_id: string; comment_id: string; address_id: string });
  const replies = await publicComments(db, wanted.map((w) => w.reply_id));
  const first = wanted[0];
  const address = await db.selectFrom('mail_addresses').select(['id', 'link_key']).where('id', '=', first.address_id).executeTakeFirst();
  if (replies.length === 0 || !address) return null;
  const page = shownName(replies[0].title ?? '', replies[0].url_key);
  const link = (scope: UnsubscribeTarget['scope'], target: string) => unsubscribeUrl(mail.publicUrl, address.link_key, { address: address.id, scope, target });
  const parts: Part[] = [{ p: S.replyIntro(replies.length) }];
  for (const reply of replies) parts.push({ p: S.replyBy(reply.author_name) }, { quote: excerpt(sourceText(reply.content, reply.mentions)) });
  parts.push(
    { link: S.replyOpen, href: replies[0].url_key },
    { link: S.unsubscribeComment, href: link('comment', first.comment_id) },
    { link: S.unsubscribeThread, href: link('thread', rows[0].thread_id ?? '') },
    { link: S.unsubscribeAll, href: link('all', '') },
  );
  return { senderName: sender, subject: S.replySubject(replies.length, page), ...render(parts), unsubscribe: link('all', '') };
}

/** Comments a moderation or mention mail lists; the others it counts ("and N more"). */
const LISTED = 20;

/**
 * A reader's mention mails of a thread, rolled into one: the comments the public still sees, in the
 * order they came, each with who wrote it, its text and its link; then the links that turn mention
 * mail off (also the one-click unsubscribe) or stop all mail.
 */
async function composeMentions(db: Kysely<Database>, mail: MailConfig, rows: MailRow[], sender: string): Promise<Composed | null> {
  const wanted = rows.map((row) => JSON.parse(row.data) as MentionMailData);
  const comments = await publicComments(db, [...new Set(wanted.map((w) => w.comment_id))]);
  const first = wanted[0];
  const address = await db.selectFrom('mail_addresses').select(['id', 'link_key']).where('id', '=', first.address_id).executeTakeFirst();
  if (comments.length === 0 || !address) return null;
  const page = shownName(comments[0].title ?? '', comments[0].url_key);
  const link = (scope: UnsubscribeTarget['scope'], target: string) => unsubscribeUrl(mail.publicUrl, address.link_key, { address: address.id, scope, target });
  const parts: Part[] = [];
  for (const comment of comments.slice(0, LISTED)) {
    parts.push({ p: S.mentionBy(comment.author_name) }, { quote: excerpt(sourceText(comment.content, comment.mentions)) }, { link: S.mentionOpen, href: commentLink(comment.url_key, comment.id) });
  }
  if (comments.length > LISTED) parts.push({ p: S.mentionMore(comments.length - LISTED) });
  const mentionsOff = link('mentions', first.user_id);
  parts.push({ p: S.mentionWhy }, { link: S.unsubscribeMentions, href: mentionsOff }, { link: S.unsubscribeAll, href: link('all', '') });
  return { senderName: sender, subject: S.mentionSubject(comments.length, page), ...render(parts), unsubscribe: mentionsOff };
}

/**
 * A staff member's moderation mails of a site, rolled into one (their comments still wait: see the
 * worker): those waiting for approval, then those flagged (each once, with the reasons of its flags),
 * in the order they came, the first LISTED of them with their author, an excerpt and
 * their link.
 */
async function composeModeration(db: Kysely<Database>, mail: MailConfig, rows: MailRow[], sender: string): Promise<Composed | null> {
  const pending = new Set<string>();
  const flagged = new Map<string, Set<string>>();
  for (const row of rows) {
    const data = JSON.parse(row.data) as ModerationMailData;
    if (data.why === 'pending') pending.add(data.comment_id);
    else {
      const reasons = flagged.get(data.comment_id) ?? new Set<string>();
      if (data.reason) reasons.add(data.reason);
      flagged.set(data.comment_id, reasons);
    }
  }
  const listed = [...[...pending].map((id) => ({ id, why: 'pending' as const })), ...[...flagged.keys()].map((id) => ({ id, why: 'flagged' as const }))].slice(0, LISTED);
  if (listed.length === 0 || rows[0].site_id === null) return null;
  const comments = await db
    .selectFrom('comments as c')
    .innerJoin('threads as t', 't.id', 'c.thread_id')
    .select(['c.id', 'c.site_id', 't.url_key as thread_url', 'c.author_name', 'c.content'])
    .where('c.id', 'in', [...new Set(listed.map((item) => item.id))])
    .execute();
  const byId = new Map(comments.map((comment) => [comment.id, comment]));
  const parts: Part[] = [];
  for (const why of ['pending', 'flagged'] as const) {
    const items = listed.filter((item) => item.why === why && byId.has(item.id));
    if (items.length === 0) continue;
    parts.push({ p: why === 'pending' ? S.moderationPendingHeading(pending.size) : S.moderationFlaggedHeading(flagged.size) });
    for (const item of items) {
      const comment = byId.get(item.id)!;
      parts.push(
        { p: why === 'pending' ? S.moderationPendingBy(comment.author_name) : S.moderationFlaggedBy(comment.author_name, [...flagged.get(item.id)!]) },
        { quote: excerpt(comment.content) },
        { link: S.moderationOpen, href: dashboardUrl(mail.publicUrl, comment) },
      );
    }
  }
  const more = pending.size + flagged.size - listed.length;
  if (more > 0) parts.push({ p: S.moderationMore(more) });
  parts.push({ link: S.moderationQueue, href: queueUrl(mail.publicUrl, rows[0].site_id, pending.size > 0 ? 'pending' : 'flagged') }, { p: S.moderationSettings });
  return { senderName: sender, subject: S.moderationSubject(sender, pending.size, flagged.size), ...render(parts), unsubscribe: null };
}

/** What to send for a claimed mail (`rows` holds more than one only for replies or moderation mails rolled together). */
export async function compose(db: Kysely<Database>, mail: MailConfig, rows: MailRow[]): Promise<Composed | null> {
  const row = rows[0];
  const sender = await siteName(db, row.site_id);
  const data = JSON.parse(row.data) as { url?: string; code?: string; minutes?: number };
  switch (row.kind) {
    case 'reply':
      return composeReplies(db, mail, rows, sender);
    case 'mention':
      return composeMentions(db, mail, rows, sender);
    case 'moderation':
      return composeModeration(db, mail, rows, sender);
    case 'confirm':
      return { senderName: sender, subject: S.confirmSubject(sender), ...render([{ p: S.confirmIntro(sender) }, { link: S.confirmAction, href: data.url! }, { p: S.confirmIgnore }]), unsubscribe: null };
    case 'reset':
      return { senderName: sender, subject: S.resetSubject, ...render([{ p: S.resetIntro }, { link: S.resetSubject, href: data.url! }, { p: S.resetIgnore }]), unsubscribe: null };
    case 'verify':
      return { senderName: sender, subject: S.verifySubject, ...render([{ p: S.verifyIntro }, { link: S.verifyAction, href: data.url! }, { p: S.verifyIgnore }]), unsubscribe: null };
    case 'sign_in': {
      const parts: Part[] = [{ p: S.signInIntro(sender) }, { code: data.code! }, { link: S.signInAction, href: data.url! }, { p: S.signInExpiry(data.minutes!) }, { p: S.signInIgnore }];
      return { senderName: sender, subject: S.signInSubject(sender), ...render(parts), unsubscribe: null };
    }
    default:
      return null;
  }
}
