import { startReceiver, type Received, type Receiver } from './receiver.ts';

/**
 * Local stand-ins for the chat services, each checking a request as the service's published API
 * describes it, and answering as the service would: 2xx when it is right, 400 with the reasons when
 * not (so a wrong request also fails the delivery). `problems` lists what was wrong with each request.
 */
export type ChatKind = 'slack' | 'discord' | 'telegram' | 'matrix';

export interface ChatReceiver extends Receiver {
  kind: ChatKind;
  /** What an alert's `target.url` is: the webhook URL (Slack, Discord) or the API's base (Telegram, Matrix). */
  targetUrl: string;
  problems: string[][];
}

export const BOT_TOKEN = '123456789:AAHk-test_token';
export const CHAT_ID = '-1001234567890';
export const MATRIX_TOKEN = 'syt_dGVzdA_test_token';
export const ROOM = '!room123:example.org';

const isText = (value: unknown, max: number) => typeof value === 'string' && value.length > 0 && value.length <= max;

function jsonRequest(r: Received, method: string): string[] {
  const problems: string[] = [];
  if (r.method !== method) problems.push(`method ${r.method}, not ${method}`);
  if (!/^application\/json\b/.test(r.headers['content-type'] ?? '')) problems.push(`content-type ${r.headers['content-type']}`);
  if (typeof r.body !== 'object' || r.body === null) problems.push('body is not a JSON object');
  return problems;
}

/** Slack incoming webhooks (docs.slack.dev/messaging/sending-messages-using-incoming-webhooks): POST JSON with `text`, Block Kit `blocks`. */
function slack(r: Received): string[] {
  const problems = jsonRequest(r, 'POST');
  if (r.url !== '/hooks') problems.push(`path ${r.url}`);
  const body = r.body ?? {};
  if (!isText(body.text, 40_000)) problems.push('no text');
  if (/<!(channel|here|everyone)>/.test(body.text ?? '')) problems.push('text pings the channel');
  if (body.blocks !== undefined) {
    if (!Array.isArray(body.blocks) || body.blocks.length > 50) problems.push('blocks is not an array of at most 50');
    for (const block of body.blocks ?? []) {
      if (block.type === 'section' && !(['mrkdwn', 'plain_text'].includes(block.text?.type) && isText(block.text.text, 3000))) problems.push('a section without text');
      if (block.type === 'actions' && !block.elements?.every((e: any) => e.type === 'button' && e.text?.type === 'plain_text' && isText(e.text.text, 75) && /^https?:\/\//.test(e.url))) problems.push('an action that is not a link button');
      if (!['section', 'actions'].includes(block.type)) problems.push(`unexpected block ${block.type}`);
    }
  }
  return problems;
}

/** Discord "Execute Webhook" (discord.com/developers/docs/resources/webhook): POST JSON with `content` (≤ 2000) and/or `embeds` (≤ 10). */
function discord(r: Received): string[] {
  const problems = jsonRequest(r, 'POST');
  if (r.url !== '/hooks') problems.push(`path ${r.url}`);
  const body = r.body ?? {};
  if (body.content === undefined && body.embeds === undefined) problems.push('neither content nor embeds');
  if (body.content !== undefined && !isText(body.content, 2000)) problems.push('content is not 1–2000 characters');
  if (body.embeds !== undefined && (!Array.isArray(body.embeds) || body.embeds.length > 10)) problems.push('embeds is not an array of at most 10');
  for (const embed of body.embeds ?? []) {
    if (embed.title !== undefined && !isText(embed.title, 256)) problems.push('embed title over 256');
    if (embed.description !== undefined && (typeof embed.description !== 'string' || embed.description.length > 4096)) problems.push('embed description over 4096');
    if (embed.url !== undefined && !/^https?:\/\//.test(embed.url)) problems.push('embed url is not http(s)');
  }
  if (body.allowed_mentions !== undefined && !Array.isArray(body.allowed_mentions.parse)) problems.push('allowed_mentions.parse is not an array');
  return problems;
}

/** The tags Telegram's HTML parse mode takes (core.telegram.org/bots/api#html-style); everything else escaped. */
function telegramHtmlProblems(text: string): string[] {
  const stripped = text.replace(/<\/?(b|strong|i|em|u|ins|s|strike|del|code|pre|blockquote|tg-spoiler)>|<a href="[^"<>]*">|<\/a>/g, '');
  const problems: string[] = [];
  if (/[<>]/.test(stripped)) problems.push('unsupported tag or unescaped < >');
  if (/&(?!(lt|gt|amp|quot|#\d+);)/.test(stripped)) problems.push('unescaped &');
  return problems;
}

/** Telegram Bot API sendMessage (core.telegram.org/bots/api#sendmessage): POST {base}/bot<token>/sendMessage with chat_id and text (1–4096). */
function telegram(r: Received): string[] {
  const problems = jsonRequest(r, 'POST');
  if (r.url !== `/bot${BOT_TOKEN}/sendMessage`) problems.push(`path ${r.url}`);
  const body = r.body ?? {};
  if (body.chat_id !== CHAT_ID) problems.push(`chat_id ${body.chat_id}`);
  if (!isText(body.text, 4096)) problems.push('text is not 1–4096 characters');
  if (body.parse_mode !== undefined && !['HTML', 'MarkdownV2', 'Markdown'].includes(body.parse_mode)) problems.push(`parse_mode ${body.parse_mode}`);
  if (body.parse_mode === 'HTML') problems.push(...telegramHtmlProblems(body.text ?? ''));
  return problems;
}

/**
 * Matrix client-server API (spec.matrix.org, PUT /_matrix/client/v3/rooms/{roomId}/send/{eventType}/{txnId}):
 * a bearer access token, an m.room.message of msgtype m.text with `body`, HTML only as org.matrix.custom.html.
 */
function matrix(r: Received): string[] {
  const problems = jsonRequest(r, 'PUT');
  const path = r.url.match(/^\/_matrix\/client\/v3\/rooms\/([^/]+)\/send\/m\.room\.message\/([^/?]+)$/);
  if (!path) problems.push(`path ${r.url}`);
  else if (decodeURIComponent(path[1]) !== ROOM) problems.push(`room ${decodeURIComponent(path[1])}`);
  if (r.headers.authorization !== `Bearer ${MATRIX_TOKEN}`) problems.push(`authorization ${r.headers.authorization}`);
  const body = r.body ?? {};
  if (body.msgtype !== 'm.text') problems.push(`msgtype ${body.msgtype}`);
  if (!isText(body.body, 65_536)) problems.push('no body');
  if (body.format !== undefined && (body.format !== 'org.matrix.custom.html' || typeof body.formatted_body !== 'string')) problems.push('format without formatted_body');
  return problems;
}

const CHECK: Record<ChatKind, (r: Received) => string[]> = { slack, discord, telegram, matrix };

/** The status the service answers a request it took with. */
const ACCEPTED: Record<ChatKind, number> = { slack: 200, discord: 204, telegram: 200, matrix: 200 };

/**
 * A chat service on 127.0.0.1. `fail(n)` answers the n-th request (0-based) with that status instead,
 * as a service that is down would (the request is still checked).
 */
export async function startChatReceiver(kind: ChatKind, fail: (index: number) => number | null = () => null): Promise<ChatReceiver> {
  const problems: string[][] = [];
  const receiver = await startReceiver((index, received) => {
    const found = CHECK[kind](received);
    problems[index] = found;
    const failure = fail(index);
    if (failure !== null) return failure;
    if (found.length > 0) return 400;
    return ACCEPTED[kind];
  });
  const targetUrl = kind === 'slack' || kind === 'discord' ? receiver.url : new URL(receiver.url).origin;
  return { ...receiver, kind, targetUrl, problems };
}

/** The body of POST /api/sites/:id/alerts that points an alert of `kind` at this receiver. */
export function alertBody(chat: ChatReceiver, events: string[], flagThreshold?: number) {
  const extra = chat.kind === 'telegram' ? { token: BOT_TOKEN, chat_id: CHAT_ID } : chat.kind === 'matrix' ? { token: MATRIX_TOKEN, room: ROOM } : {};
  return { kind: chat.kind, target: { url: chat.targetUrl, ...extra }, events, ...(flagThreshold !== undefined && { flag_threshold: flagThreshold }) };
}
