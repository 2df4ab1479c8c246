import type { Answer } from '../../client/api.ts';
import type { MessageKey } from '../i18n.ts';
import type { QueueStatus } from './search.ts';

export type QueueItem = Answer<'/api/comments'>['comments'][number];
export type Action = 'approve' | 'remove' | 'spam' | 'shadow_ban' | 'unhide' | 'dismiss_flags';

/** The buttons' words; what an action did is said by messages that select on the action (queue.done…). */
export const ACTION_LABELS: Record<Action, MessageKey> = {
  approve: 'queue.approve',
  remove: 'queue.remove',
  spam: 'queue.spam',
  shadow_ban: 'queue.shadowBan',
  unhide: 'queue.unhide',
  dismiss_flags: 'queue.dismissFlags',
};

/** What the server will make of a comment (src/moderation/service.ts targetOf): shown before it answers. */
export function expected(item: QueueItem, action: Action): QueueItem {
  switch (action) {
    case 'approve':
    case 'unhide':
      return { ...item, status: 'published', moderation_status: null };
    case 'remove':
      return { ...item, status: 'removed', moderation_status: 'removed', flags: { ...item.flags, count: 0 } };
    case 'spam':
      return { ...item, status: 'spam', moderation_status: 'spam', flags: { ...item.flags, count: 0 } };
    case 'shadow_ban':
      return { ...item, moderation_status: 'shadow_banned' };
    case 'dismiss_flags':
      return { ...item, flags: { count: 0, reasons: [] } };
  }
}

/** Whether a comment belongs in a tab of the queue (the server's status filters). */
export function belongsIn(status: QueueStatus, item: QueueItem): boolean {
  if (status === 'all') return true;
  if (status === 'deleted') return item.is_deleted;
  if (item.is_deleted) return false;
  if (status === 'flagged') return item.status === 'published' && item.flags.count > 0;
  return item.status === status;
}

/** The author's ban on the comment's site, if one is in force. */
export const standingOf = (item: QueueItem) => item.author.standing;

/** Whether the author can be banned or shadow-banned still: the server refuses a ban already in force. */
export function bansOpen(item: QueueItem): Array<'ban' | 'shadow_ban'> {
  if (item.author.kind !== 'user' || !item.author.id) return [];
  const standing = standingOf(item);
  return (['ban', 'shadow_ban'] as const).filter((type) => standing !== (type === 'ban' ? 'banned' : 'shadow_banned'));
}

/** Which of the actions make sense for a comment as it is now (and the server accepts). */
export function actionsFor(item: QueueItem): Action[] {
  const actions: Action[] = [];
  const hidden = item.status !== 'published' || item.moderation_status === 'shadow_banned';
  if (item.status !== 'published' || item.flags.count > 0) actions.push('approve');
  if (item.status !== 'removed') actions.push('remove');
  if (item.status !== 'spam') actions.push('spam');
  if (bansOpen(item).includes('shadow_ban') && item.moderation_status !== 'shadow_banned') actions.push('shadow_ban');
  if (hidden && item.status !== 'pending') actions.push('unhide');
  if (item.flags.count > 0) actions.push('dismiss_flags');
  return actions;
}

/**
 * Puts refused comments back where they were: each before the first comment that followed it
 * before the action and is still listed (or at the end), with what it was before.
 */
export function restore(current: QueueItem[], before: QueueItem[], refused: Set<string>): QueueItem[] {
  const result = current.filter((item) => !refused.has(item.id));
  for (let i = before.length - 1; i >= 0; i--) {
    const item = before[i];
    if (!refused.has(item.id)) continue;
    const next = before.slice(i + 1).find((later) => result.some((kept) => kept.id === later.id));
    const at = next ? result.findIndex((kept) => kept.id === next.id) : result.length;
    result.splice(at, 0, item);
  }
  return result;
}
