import type { Kysely, Selectable } from 'kysely';
import type { Database, MailOutboxTable } from '../db/schema.ts';
import { escapeHtml } from '../formatting/escape.ts';
import { MENTION } from '../formatting/mentions.ts';
import type { Mention } from '../formatting/render.ts';
import { decodeSiteStrings, type SiteStrings } from '../sites/strings.ts';
import { shownName } from './shown-name.ts';
import { voiceOf, type Voice } from './words.ts';

// What every mail is made of: its sender, its voice, its parts and how they are written out.

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

export function excerpt(text: string | null): string {
  const whole = text ?? '';
  return whole.length > EXCERPT ? `${whole.slice(0, EXCERPT)}…` : whole;
}

/** A comment's source as a mail quotes it: its mentions as the names they show (`@Name`), the rest as written. */
export function sourceText(content: string | null, mentions: string): string {
  const names = new Map((JSON.parse(mentions) as Mention[]).map((mention) => [mention.user_id, mention.name]));
  return (content ?? '').replace(MENTION, (_whole, typed: string, userId: string) => `@${names.get(userId) ?? typed}`);
}

/** Where a comment is read on its page: the widget there scrolls to the comment the fragment names. */
export function commentLink(threadUrl: string, commentId: string): string {
  return `${threadUrl}#parley_comment=${commentId}`;
}

/** A body as parts: paragraphs of text, quotes, links and a code to type, written out as plain text and as simple HTML. */
export type Part = { p: string } | { quote: string } | { link: string; href: string } | { code: string };

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

export function render(parts: Part[], voice: Voice): { text: string; html: string } {
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
export interface Sender {
  name: string;
  language: string | null;
  strings: SiteStrings;
}

export async function senderOf(db: Kysely<Database>, siteId: string | null): Promise<Sender> {
  const site = siteId === null ? undefined : await db.selectFrom('sites').select(['name', 'language', 'strings']).where('id', '=', siteId).executeTakeFirst();
  return { name: shownName(site?.name ?? '', NO_SITE_NAME), language: site?.language ?? null, strings: decodeSiteStrings(site?.strings ?? null) };
}

/** A mail speaks its recipient's language, else its site's, else English. */
export function voiceFor(sender: Sender, recipientLanguage: string | null | undefined): Voice {
  return voiceOf([recipientLanguage, sender.language], sender.strings);
}

/** The language a staff member chose (moderation, reset and verify mails go to their address, which is one person's). */
export async function staffLanguage(db: Kysely<Database>, email: string): Promise<string | null> {
  const staff = await db.selectFrom('staff').select('language').where('email', '=', email).executeTakeFirst();
  return staff?.language ?? null;
}

/** The comments of a mail that the public still sees, oldest first, with their thread: a mail leaves out what was hidden since it was queued. */
export function publicComments(db: Kysely<Database>, ids: string[]) {
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

/** Comments a mail lists; the others it counts ("and N more"). */
export const LISTED = 20;
