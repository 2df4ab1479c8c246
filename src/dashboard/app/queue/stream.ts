import { useEffect, useRef } from 'preact/hooks';
import type { QueueStatus } from './search.ts';

/** One change of the moderation queue as GET /api/comments/stream sends it. */
export interface QueueChange {
  type: 'comment.created' | 'comment.updated' | 'comment.flagged' | 'moderation.action' | 'comment.deleted';
  comment_id: string;
  site_id: string;
  status: 'pending' | 'published' | 'removed' | 'spam';
  action?: string;
}

export interface StreamHandlers {
  /** A queue change arrived. */
  onChange: (change: QueueChange) => void;
  /** Whether changes arrive live; while not, the queue refreshes itself the old way. */
  onLive: (live: boolean) => void;
  /** The stream could not replay what was missed: the queue should reload. */
  onReset: () => void;
}

/**
 * Listens to the staff stream of the queue's site (every site the caller moderates when `site` is
 * empty) while the view is mounted. The browser reconnects by itself after an error and resumes with
 * Last-Event-ID; until the next `ready`, the queue counts as not live.
 */
export function useQueueStream(site: string, handlers: StreamHandlers): void {
  // The latest handlers, so the stream is not reopened when the view draws again.
  const current = useRef(handlers);
  current.current = handlers;
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    const source = new EventSource(`/api/comments/stream${site ? `?site_id=${encodeURIComponent(site)}` : ''}`);
    source.onmessage = (event: MessageEvent<string>) => {
      let data: { type?: string };
      try {
        data = JSON.parse(event.data);
      } catch {
        return;
      }
      if (data.type === 'ready') current.current.onLive(true);
      else if (data.type === 'reset') current.current.onReset();
      else current.current.onChange(data as QueueChange);
    };
    source.onerror = () => current.current.onLive(false);
    return () => {
      source.close();
      current.current.onLive(false);
    };
  }, [site]);
}

/** Whether a change brings a comment into a tab of the queue (the tab shows it after a reload). */
export function entersTab(status: QueueStatus, change: QueueChange): boolean {
  switch (status) {
    case 'all':
      return change.type === 'comment.created';
    case 'flagged':
      return change.type === 'comment.flagged' && change.status === 'published';
    case 'deleted':
      return change.type === 'comment.deleted';
    default:
      return change.status === status && change.type !== 'comment.deleted';
  }
}

/** Whether a change takes a comment shown in a tab out of it. */
export function leavesTab(status: QueueStatus, change: QueueChange): boolean {
  switch (status) {
    case 'all':
    case 'deleted':
      return false;
    case 'flagged':
      return change.type === 'comment.deleted' || change.status !== 'published' || change.action === 'dismiss_flags';
    default:
      return change.type === 'comment.deleted' || change.status !== status;
  }
}

export type ChangeKind = 'deleted' | 'flags_dismissed' | 'pinned' | 'unpinned' | 'approved' | 'held' | 'spam' | 'removed';

/** What became of a comment, for its card to say (queue.changed). */
export function changeKind(change: QueueChange): ChangeKind {
  if (change.type === 'comment.deleted') return 'deleted';
  if (change.action === 'dismiss_flags') return 'flags_dismissed';
  if (change.action === 'pin') return 'pinned';
  if (change.action === 'unpin') return 'unpinned';
  return change.status === 'published' ? 'approved' : change.status === 'pending' ? 'held' : change.status === 'spam' ? 'spam' : 'removed';
}
