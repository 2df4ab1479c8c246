import type { Kysely } from 'kysely';
import type { MailConfig } from '../config.ts';
import type { Database } from '../db/schema.ts';
import { unsubscribeUrl, type UnsubscribeTarget } from './links.ts';
import { dashboardUrl, queueUrl, type ModerationMailData } from './moderators.ts';
import { shownName } from './shown-name.ts';
import { listOf, type Voice } from './words.ts';
import type { MentionMailData } from './mentions.ts';
import { commentLink, excerpt, LISTED, publicComments, render, senderOf, sourceText, staffLanguage, voiceFor, type Composed, type MailRow, type Part, type Sender } from './compose-parts.ts';
import { composeDigest, composeFollowed, composeNotice, composeStaffDigest } from './compose-notifications.ts';

export type { Composed, MailRow } from './compose-parts.ts';

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
    case 'followed':
      return composeFollowed(db, mail, rows, sender);
    case 'notice':
      return composeNotice(db, mail, rows, sender);
    case 'digest':
      return composeDigest(db, mail, rows, sender);
    case 'moderation_digest':
      return composeStaffDigest(db, mail, rows, sender);
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
