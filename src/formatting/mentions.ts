import type { StateInline, Token } from 'markdown-it';
import { escapeHtml } from './escape.ts';

/**
 * A mention as the author's source keeps it: `@[Name](usr_…)`, the name as the widget inserted it
 * and the id of the site user it names. The name shown is the user's own, looked up when the
 * comment is written: a source cannot make a mention read as someone else.
 */
export const MENTION = /@\[([^\]\n]{1,100})\]\((usr_[0-9a-z]{1,40})\)/g;

/** The users a comment's mentions name, by id: only those of its site. */
export type MentionNames = ReadonlyMap<string, string>;

/** The ids a source mentions, each once, in order. */
export function mentionedIds(source: string): string[] {
  return [...new Set(Array.from(source.matchAll(MENTION), (match) => match[2]))];
}

/** A known user's mention as HTML; an unknown one is its typed name, as text. */
export function mentionHtml(userId: string, typedName: string, names: MentionNames): string {
  const name = names.get(userId);
  if (name === undefined) return escapeHtml(`@${typedName}`);
  return `<span class="parley-mention" data-user-id="${escapeHtml(userId)}">@${escapeHtml(name)}</span>`;
}

/** markdown-it's inline rule for a mention, tried before links (a mention's tail reads as one). */
export function mentionRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x40 /* @ */) return false;
  const pattern = new RegExp(MENTION.source, 'y');
  pattern.lastIndex = state.pos;
  const match = pattern.exec(state.src);
  if (!match) return false;
  if (!silent) {
    const token = state.push('mention', '', 0);
    token.meta = { name: match[1], userId: match[2] };
  }
  state.pos += match[0].length;
  return true;
}

export function renderMention(token: Token, names: MentionNames): string {
  return mentionHtml(token.meta.userId, token.meta.name, names);
}
