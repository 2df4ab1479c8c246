/// <reference lib="dom" />
import type { CommentPage } from './api.ts';

/** How old the thread's HTML may be for the widget to show its list rather than read it: one a site's server just included, not a static build's. */
const FRESH_MS = 10 * 60_000;

export interface ServerThread {
  sort: 'newest' | 'oldest' | 'top' | 'best';
  list: CommentPage;
}

/**
 * The first page of the thread that GET /v1/comments/html drew in the element's declarative shadow
 * root, taken (once) for the widget to draw from instead of fetching it again: only the public's
 * list of this thread, page 1, recently served.
 */
export function takeServerThread(root: ShadowRoot, threadUrl: string, now = Date.now()): ServerThread | null {
  const script = root.querySelector('script[data-parley-thread]');
  if (!script) return null;
  script.remove();
  try {
    const data = JSON.parse(script.textContent ?? '') as ServerThread & { thread_url: string; served_at: number };
    const fresh = Math.abs(now - data.served_at) < FRESH_MS;
    return fresh && data.list.page === 1 && data.thread_url === new URL(threadUrl).href.split('#')[0] ? data : null;
  } catch {
    return null;
  }
}
