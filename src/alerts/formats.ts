import { escapeHtml } from '../formatting/escape.ts';
import type { Locale } from '../i18n/locales.ts';
import { dashboardUrl } from '../mail/moderators.ts';
import type { DeliveryRequest } from '../webhooks/send.ts';
import type { AlertEvent, AlertKind, AlertRow } from './repository.ts';
import { alertWords, type AlertMessageKey } from './words.ts';

/**
 * What an alert tells, fixed when the event happens and stored as the delivery's body; each attempt
 * renders it in the service's format (the same bytes every time), with the link to the dashboard.
 */
export interface AlertFacts {
  event: AlertEvent | 'test';
  language: Locale | null;
  site: { id: string; name: string };
  comment: { id: string; thread_url: string; author_name: string; excerpt: string };
  /** How many readers flagged it (comment.flagged). */
  flags?: number;
}

const HEADLINE: Record<AlertFacts['event'], AlertMessageKey> = {
  'comment.held': 'held',
  'comment.flagged': 'flagged',
  'comment.first': 'first',
  test: 'test',
};

interface Message {
  headline: string;
  excerpt: string;
  link: string;
  linkLabel: string;
}

function messageOf(facts: AlertFacts, publicUrl: string): Message {
  const words = alertWords(facts.language);
  return {
    headline: words(HEADLINE[facts.event], { site: facts.site.name, author: facts.comment.author_name, count: facts.flags ?? 0 }),
    excerpt: facts.comment.excerpt,
    link: dashboardUrl(publicUrl, { site_id: facts.site.id, thread_url: facts.comment.thread_url, id: facts.comment.id }),
    linkLabel: words('open'),
  };
}

/** Slack's control characters in text: `<!channel>` would ping everyone (docs.slack.dev, "Formatting text"). */
function slackText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Discord's markdown, so a name or comment cannot restyle the message (quotes and headings only start a line). */
function discordText(text: string): string {
  return text.replace(/[\\*_~`|[\]]/g, '\\$&').replace(/^[>#-]/, '\\$&');
}

/** Slack incoming webhook: `text` (the notification's words) and Block Kit `blocks`. */
function slack(m: Message) {
  return {
    text: `${slackText(m.headline)}\n>${slackText(m.excerpt)}\n<${m.link}|${slackText(m.linkLabel)}>`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `*${slackText(m.headline)}*\n>${slackText(m.excerpt)}` } },
      { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: m.linkLabel }, url: m.link }] },
    ],
  };
}

/** Discord "Execute Webhook": `content` and one embed; `allowed_mentions` empty, so no text pings anyone. */
function discord(m: Message) {
  return {
    content: discordText(m.headline),
    embeds: [{ title: m.linkLabel, url: m.link, description: discordText(m.excerpt) }],
    allowed_mentions: { parse: [] },
  };
}

/** Telegram Bot API sendMessage with parse_mode HTML (its few tags, the text escaped). */
function telegram(m: Message, chatId: string) {
  return {
    chat_id: chatId,
    text: `<b>${escapeHtml(m.headline)}</b>\n<blockquote>${escapeHtml(m.excerpt)}</blockquote>\n<a href="${escapeHtml(m.link)}">${escapeHtml(m.linkLabel)}</a>`,
    parse_mode: 'HTML',
    link_preview_options: { is_disabled: true },
  };
}

/** Matrix m.room.message of msgtype m.text: plain `body` and its org.matrix.custom.html form. */
function matrix(m: Message) {
  return {
    msgtype: 'm.text',
    body: `${m.headline}\n> ${m.excerpt}\n${m.linkLabel}: ${m.link}`,
    format: 'org.matrix.custom.html',
    formatted_body: `<p><strong>${escapeHtml(m.headline)}</strong></p><blockquote>${escapeHtml(m.excerpt)}</blockquote><p><a href="${escapeHtml(m.link)}">${escapeHtml(m.linkLabel)}</a></p>`,
  };
}

const base = (url: string) => url.replace(/\/+$/, '');

/**
 * The request an attempt sends for the alert. The Telegram bot token and the Matrix access token are
 * read from the alert at the attempt, never stored in the delivery. Matrix's transaction id is the
 * delivery id, so a retry the homeserver already took is not posted twice.
 */
export function alertRequest(alert: Pick<AlertRow, 'kind' | 'url' | 'token' | 'chat_id' | 'room'>, delivery: { id: string; body: string }, publicUrl: string): DeliveryRequest {
  const message = messageOf(JSON.parse(delivery.body) as AlertFacts, publicUrl);
  const json = { 'Content-Type': 'application/json' };
  switch (alert.kind as AlertKind) {
    case 'slack':
      return { method: 'POST', url: alert.url, headers: json, body: JSON.stringify(slack(message)) };
    case 'discord':
      return { method: 'POST', url: alert.url, headers: json, body: JSON.stringify(discord(message)) };
    case 'telegram':
      return { method: 'POST', url: `${base(alert.url)}/bot${alert.token}/sendMessage`, headers: json, body: JSON.stringify(telegram(message, alert.chat_id!)) };
    case 'matrix':
      return {
        method: 'PUT',
        url: `${base(alert.url)}/_matrix/client/v3/rooms/${encodeURIComponent(alert.room!)}/send/m.room.message/${encodeURIComponent(delivery.id)}`,
        headers: { ...json, Authorization: `Bearer ${alert.token}` },
        body: JSON.stringify(matrix(message)),
      };
  }
}
