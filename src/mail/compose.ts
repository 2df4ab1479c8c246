import type { Kysely, Selectable } from 'kysely';
import type { MailConfig } from '../config.ts';
import type { Database, MailOutboxTable } from '../db/schema.ts';
import { unsubscribeUrl, type UnsubscribeTarget } from './links.ts';
import { dashboardUrl, queueUrl, type ModerationMailData } from './moderators.ts';
import { shownName } from './shown-name.ts';
import { listOf, voiceOf, type Voice } from './words.ts';
import { escapeHtml } from '../formatting/escape.ts';
import { MENTION } from '../formatting/mentions.ts';
import type { Mention } from '../formatting/render.ts';
import type { MentionMailData } from './mentions.ts';
import { decodeSiteStrings, type SiteStrings } from '../sites/strings.ts';

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
export function sourceText(content: string | null, mentions: string): string {
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

function htmlOf(part: Part, dir: Voice['dir']): string {
  if ('p' in part) return `<p>${escapeHtml(part.p)}</p>`;
  // Mail clients know few logical properties: the quote's bar is drawn on the side the text starts.
  const side = dir === 'rtl' ? 'right' : 'left';
  if ('quote' in part) return `<blockquote style="margin:0 0 1em;padding-${side}:1em;border-${side}:3px solid #ccc;white-space:pre-wrap">${escapeHtml(part.quote)}</blockquote>`;
  if ('code' in part) return `<p style="font-size:2em;font-weight:bold;letter-spacing:.2em;font-family:monospace" dir="ltr">${escapeHtml(part.code)}</p>`;
  return `<p><a href="${escapeHtml(part.href)}">${escapeHtml(part.link)}</a></p>`;
}

function render(parts: Part[], voice: Voice): { text: string; html: string } {
  const text = parts.map(textOf).join('\n\n');
  const html = parts.map((part) => htmlOf(part, voice.dir)).join('\n');
  return {
    text: `${text}\n`,
    html: `<!doctype html><html lang="${voice.locale}" dir="${voice.dir}"><body dir="${voice.dir}" style="font-family:sans-serif;line-height:1.5">\n${html}\n</body></html>\n`,
  };
}

/** What a mail shows for a site it cannot name. */
const NO_SITE_NAME = 'Parley';

/** The site a mail is from: its name (made safe to show: shown-name.ts) as the sender's name and in subjects, its language and its own words. */
interface Sender {
  name: string;
  language: string | null;
  strings: SiteStrings;
}

async function senderOf(db: Kysely<Database>, siteId: string | null): Promise<Sender> {
  const site = siteId === null ? undefined : await db.selectFrom('sites').select(['name', 'language', 'strings']).where('id', '=', siteId).executeTakeFirst();
  return { name: shownName(site?.name ?? '', NO_SITE_NAME), language: site?.language ?? null, strings: decodeSiteStrings(site?.strings ?? null) };
}

/** A mail speaks its recipient's language, else its site's, else English. */
function voiceFor(sender: Sender, recipientLanguage: string | null | undefined): Voice {
  return voiceOf([recipientLanguage, sender.language], sender.strings);
}

/** The language a staff member chose (moderation, reset and verify mails go to their address, which is one person's). */
async function staffLanguage(db: Kysely<Database>, email: string): Promise<string | null> {
  const staff = await db.selectFrom('staff').select('language').where('email', '=', email).executeTakeFirst();
  return staff?.language ?? null;
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

/** Replies of a thread to one address, rolled into one mail: those the public still sees, in the language of the widget the address was given in. */
async function composeReplies(db: Kysely<Database>, mail: MailConfig, rows: MailRow[], sender: Sender): Promise<Composed | null> {
  const wanted = rows.map((row) => JSON.parse(row.data) as { reply_id: string; comment_id: string; address_id: string });
  const replies = await publicComments(db, wanted.map((w) => w.reply_id));
  const first = wanted[0];
  const address = await db.selectFrom('mail_addresses').select(['id', 'link_key', 'language']).where('id', '=', first.address_id).executeTakeFirst();
  if (replies.length === 0 || !address) return null;
  const voice = voiceFor(sender, address.language);
  const { say } = voice;
  const page = shownName(replies[0].title ?? '', replies[0].url_key);
  const link = (scope: UnsubscribeTarget['scope'], target: string) => unsubscribeUrl(mail.publicUrl, address.link_key, { address: address.id, scope, target });
  const parts: Part[] = [{ p: say('replyIntro', { count: replies.length }) }];
  for (const reply of replies) parts.push({ p: say('replyBy', { name: reply.author_name }) }, { quote: excerpt(sourceText(reply.content, reply.mentions)) });
  parts.push(
    { link: say('replyOpen'), href: replies[0].url_key },
    { link: say('unsubscribeComment'), href: link('comment', first.comment_id) },
    { link: say('unsubscribeThread'), href: link('thread', rows[0].thread_id ?? '') },
    { link: say('unsubscribeAll'), href: link('all', '') },
  );
  return { senderName: sender.name, subject: say('replySubject', { count: replies.length, page }), ...render(parts, voice), unsubscribe: link('all', '') };
}

/** Comments a moderation or mention mail lists; the others it counts ("and N more"). */
const LISTED = 20;

/**
 * A reader's mention mails of a thread, rolled into one, in the language they last used the widget
 * in: the comments the public still sees, in the order they came, each with who wrote it, its text
 * and its link; then the links that turn mention mail off (also the one-click unsubscribe) or stop
 * all mail.
 */
async function composeMentions(db: Kysely<Database>, mail: MailConfig, rows: MailRow[], sender: Sender): Promise<Composed | null> {
  const wanted = rows.map((row) => JSON.parse(row.data) as MentionMailData);
  const comments = await publicComments(db, [...new Set(wanted.map((w) => w.comment_id))]);
  const first = wanted[0];
  const address = await db.selectFrom('mail_addresses').select(['id', 'link_key']).where('id', '=', first.address_id).executeTakeFirst();
  if (comments.length === 0 || !address) return null;
  const reader = await db.selectFrom('site_users').select('language').where('id', '=', first.user_id).executeTakeFirst();
  const voice = voiceFor(sender, reader?.language);
  const { say } = voice;
  const page = shownName(comments[0].title ?? '', comments[0].url_key);
  const link = (scope: UnsubscribeTarget['scope'], target: string) => unsubscribeUrl(mail.publicUrl, address.link_key, { address: address.id, scope, target });
  const parts: Part[] = [];
  for (const comment of comments.slice(0, LISTED)) {
    parts.push(
      { p: say('mentionBy', { name: comment.author_name }) },
      { quote: excerpt(sourceText(comment.content, comment.mentions)) },
      { link: say('mentionOpen'), href: commentLink(comment.url_key, comment.id) },
    );
  }
  if (comments.length > LISTED) parts.push({ p: say('mentionMore', { count: comments.length - LISTED }) });
  const mentionsOff = link('mentions', first.user_id);
  parts.push({ p: say('mentionWhy') }, { link: say('unsubscribeMentions'), href: mentionsOff }, { link: say('unsubscribeAll'), href: link('all', '') });
  return { senderName: sender.name, subject: say('mentionSubject', { count: comments.length, page }), ...render(parts, voice), unsubscribe: mentionsOff };
}

/** A moderation mail's subject: what waits, what was flagged, or both. */
function moderationSubject(voice: Voice, site: string, pending: number, flagged: number): string {
  if (flagged === 0) return voice.say('moderationSubjectPending', { site, pending });
  if (pending === 0) return voice.say('moderationSubjectFlagged', { site, flagged });
  return voice.say('moderationSubjectBoth', { site, pending, flagged });
}

/**
 * A staff member's moderation mails of a site, rolled into one (their comments still wait: see the
 * worker), in the language they chose: those waiting for approval, then those flagged (each once,
 * with the reasons of its flags), in the order they came, the first LISTED of them with their
 * author, an excerpt and their link.
 */
async function composeModeration(db: Kysely<Database>, mail: MailConfig, rows: MailRow[], sender: Sender): Promise<Composed | null> {
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
  const voice = voiceFor(sender, await staffLanguage(db, rows[0].recipient));
  const { say } = voice;
  const byId = new Map(comments.map((comment) => [comment.id, comment]));
  const by = (why: 'pending' | 'flagged', id: string, name: string) => {
    const reasons = why === 'flagged' ? [...flagged.get(id)!] : [];
    return reasons.length === 0 ? say('moderationPendingBy', { name }) : say('moderationFlaggedBy', { name, reasons: listOf(voice.locale, reasons) });
  };
  const parts: Part[] = [];
  for (const why of ['pending', 'flagged'] as const) {
    const items = listed.filter((item) => item.why === why && byId.has(item.id));
    if (items.length === 0) continue;
    parts.push({ p: why === 'pending' ? say('moderationPendingHeading', { count: pending.size }) : say('moderationFlaggedHeading', { count: flagged.size }) });
    for (const item of items) {
      const comment = byId.get(item.id)!;
      parts.push({ p: by(why, item.id, comment.author_name) }, { quote: excerpt(comment.content) }, { link: say('moderationOpen'), href: dashboardUrl(mail.publicUrl, comment) });
    }
  }
  const more = pending.size + flagged.size - listed.length;
  if (more > 0) parts.push({ p: say('moderationMore', { count: more }) });
  parts.push({ link: say('moderationQueue'), href: queueUrl(mail.publicUrl, rows[0].site_id, pending.size > 0 ? 'pending' : 'flagged') }, { p: say('moderationSettings') });
  return { senderName: sender.name, subject: moderationSubject(voice, sender.name, pending.size, flagged.size), ...render(parts, voice), unsubscribe: null };
}

/** A mail of one link (and a code): its subject and parts, in the voice given. */
function single(sender: Sender, voice: Voice, subject: string, parts: Part[]): Composed {
  return { senderName: sender.name, subject, ...render(parts, voice), unsubscribe: null };
}

/** What a mail of one link holds: the link, a sign-in code and its minutes, and the language of the request that caused it. */
interface LinkMailData {
  url?: string;
  code?: string;
  minutes?: number;
  language?: string | null;
}

/**
 * What to send for a claimed mail (`rows` holds more than one only for replies or moderation mails
 * rolled together), in its recipient's language: read when it is sent, or, for a confirmation or a
 * sign-in code (whose address has no language of its own yet), kept in the row by the request that
 * queued it.
 */
export async function compose(db: Kysely<Database>, mail: MailConfig, rows: MailRow[]): Promise<Composed | null> {
  const row = rows[0];
  const sender = await senderOf(db, row.site_id);
  const data = JSON.parse(row.data) as LinkMailData;
  const staffVoice = async () => voiceFor(sender, await staffLanguage(db, row.recipient));
  switch (row.kind) {
    case 'reply':
      return composeReplies(db, mail, rows, sender);
    case 'mention':
      return composeMentions(db, mail, rows, sender);
    case 'moderation':
      return composeModeration(db, mail, rows, sender);
    case 'confirm': {
      const voice = voiceFor(sender, data.language);
      const { say } = voice;
      const site = sender.name;
      return single(sender, voice, say('confirmSubject', { site }), [{ p: say('confirmIntro', { site }) }, { link: say('confirmAction'), href: data.url! }, { p: say('confirmIgnore') }]);
    }
    case 'reset': {
      const voice = await staffVoice();
      const { say } = voice;
      return single(sender, voice, say('resetSubject'), [{ p: say('resetIntro') }, { link: say('resetSubject'), href: data.url! }, { p: say('resetIgnore') }]);
    }
    case 'verify': {
      const voice = await staffVoice();
      const { say } = voice;
      return single(sender, voice, say('verifySubject'), [{ p: say('verifyIntro') }, { link: say('verifyAction'), href: data.url! }, { p: say('verifyIgnore') }]);
    }
    case 'sign_in': {
      const voice = voiceFor(sender, data.language);
      const { say } = voice;
      const site = sender.name;
      const parts: Part[] = [
        { p: say('signInIntro', { site }) },
        { code: data.code! },
        { link: say('signInAction'), href: data.url! },
        { p: say('signInExpiry', { minutes: data.minutes! }) },
        { p: say('signInIgnore') },
      ];
      return single(sender, voice, say('signInSubject', { site }), parts);
    }
    default:
      return null;
  }
}
