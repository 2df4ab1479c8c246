/// <reference lib="dom" />
import type { Comment } from './api.ts';

/** One message of the thread's stream (GET /v1/comments/stream). */
export type LiveMessage =
  | { type: 'ready' }
  | { type: 'notifications'; unread: number }
  | { type: 'reset' }
  | { type: 'comment.created' | 'comment.updated' | 'comment.deleted'; comment: Comment }
  | { type: 'comment.hidden'; comment_id: string }
  | { type: 'comment.counts'; comment_id: string; upvotes: number; downvotes: number; reaction_counts: Record<string, number> };

/** A tab hidden this long stops streaming; it resumes from where it was when shown again. */
const IDLE_AFTER_MS = 5 * 60_000;
/** Without streaming (no EventSource, or refused), the thread is read again every 30–60 s. */
const POLL_MIN_MS = 30_000;

/**
 * Keeps a widget told of its thread's changes: a stream while the tab is visible (EventSource
 * reconnects by itself, sending Last-Event-ID), closed after a while hidden and resumed from its
 * last event when shown, and polling when streaming is not possible.
 */
export class LiveConnection {
  #source: EventSource | null = null;
  #lastEventId: string | null = null;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  #pollTimer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  readonly #onVisibility = () => this.#visibilityChanged();

  constructor(
    private readonly url: string,
    private readonly onMessage: (message: LiveMessage) => void,
    private readonly poll: () => Promise<void>,
  ) {
    document.addEventListener('visibilitychange', this.#onVisibility);
    this.#open();
  }

  #open(): void {
    if (this.#stopped) return;
    if (typeof EventSource === 'undefined') return this.#startPolling();
    const resume = this.#lastEventId === null ? '' : `&last_event_id=${encodeURIComponent(this.#lastEventId)}`;
    const source = new EventSource(this.url + resume);
    this.#source = source;
    source.onmessage = (event) => {
      if (event.lastEventId) this.#lastEventId = event.lastEventId;
      try {
        this.onMessage(JSON.parse(event.data) as LiveMessage);
      } catch {
        // A message this widget does not understand is skipped.
      }
    };
    // Refused (429, 403) or unreachable for good: EventSource gives up (CLOSED); polling takes over.
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED && this.#source === source) {
        this.#source = null;
        this.#startPolling();
      }
    };
  }

  #close(): void {
    this.#source?.close();
    this.#source = null;
  }

  #startPolling(): void {
    if (this.#stopped || this.#pollTimer !== undefined) return;
    const next = () => {
      this.#pollTimer = setTimeout(async () => {
        if (document.visibilityState === 'visible') await this.poll().catch(() => undefined);
        next();
      }, POLL_MIN_MS + Math.random() * POLL_MIN_MS);
    };
    next();
  }

  #visibilityChanged(): void {
    clearTimeout(this.#idleTimer);
    if (document.visibilityState === 'hidden') {
      this.#idleTimer = setTimeout(() => this.#close(), IDLE_AFTER_MS);
    } else if (this.#source === null && this.#pollTimer === undefined) {
      this.#open();
    }
  }

  stop(): void {
    this.#stopped = true;
    this.#close();
    clearTimeout(this.#idleTimer);
    clearTimeout(this.#pollTimer);
    document.removeEventListener('visibilitychange', this.#onVisibility);
  }
}
