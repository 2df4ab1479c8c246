import { useEffect, useRef, useState } from 'preact/hooks';
import { api, errorText, must, type paths } from '../../client/api.ts';
import type { QueueItem } from './actions.ts';

export const PAGE_SIZE = 50;
/** The next page starts loading when the card this many before the end comes within a screen of view: the moderator never waits at the end. */
const AHEAD = 15;
const MARGIN = '0px 0px 100% 0px';

type Query = NonNullable<paths['/api/comments']['get']['parameters']['query']>;

export interface Listing {
  items: QueueItem[];
  next: string | null;
  state: 'loading' | 'ready' | 'error';
  error?: string;
  /** The next page: being loaded, or failed (the queue then offers a button). */
  more: 'idle' | 'loading' | 'failed';
  moreError?: string;
  /** When the first page's data arrived, to time how long drawing it takes. */
  arrivedAt?: number;
}

/**
 * One tab of the queue, page after page: the first page whenever `key` or `reloads` change, the
 * next ones on `loadMore`, one at a time (a page asked for by an older search is dropped).
 */
export function useListing(query: Query, key: string, reloads: number) {
  const [stored, setListing] = useState<Listing & { of?: string }>({ items: [], next: null, state: 'loading', more: 'idle' });
  // Another tab or search draws as loading at once, never with the cards of the one before.
  const of = `${reloads}:${key}`;
  const listing: Listing = stored.of === of ? stored : { items: [], next: null, state: 'loading', more: 'idle' };
  const latest = useRef(listing);
  latest.current = listing;
  const generation = useRef(0);
  const page = (cursor?: string) => must(api.GET('/api/comments', { params: { query: { ...query, limit: PAGE_SIZE, ...(cursor && { cursor }) } } }));

  useEffect(() => {
    const mine = ++generation.current;
    page().then(
      (first) => mine === generation.current && setListing({ of, items: first.comments, next: first.next_cursor, state: 'ready', more: 'idle', arrivedAt: performance.now() }),
      (error) => mine === generation.current && setListing({ of, items: [], next: null, state: 'error', error: errorText(error), more: 'idle' }),
    );
  }, [key, reloads]);

  const loadMore = async () => {
    const { next, more, state } = latest.current;
    if (!next || more === 'loading' || state !== 'ready') return;
    const mine = generation.current;
    latest.current = { ...latest.current, more: 'loading' };
    setListing((current) => ({ ...current, more: 'loading' }));
    try {
      const found = await page(next);
      if (mine !== generation.current) return;
      setListing((current) => {
        const known = new Set(current.items.map((item) => item.id));
        return { ...current, items: [...current.items, ...found.comments.filter((item) => !known.has(item.id))], next: found.next_cursor, more: 'idle' };
      });
    } catch (error) {
      if (mine === generation.current) setListing((current) => ({ ...current, more: 'failed', moreError: errorText(error) }));
    }
  };

  return { listing, setListing, loadMore, firstPage: () => page() };
}

/**
 * Calls `onNear` when the card `AHEAD` cards before the end of `list`, or the end itself, comes near
 * the screen. Observed again whenever the list changes (`version`), so a page too
 * short to push it away is followed by the next one. Without IntersectionObserver it reports false:
 * the queue then shows a button.
 */
export function useNearEnd(onNear: () => void, list: { current: HTMLElement | null }, end: { current: HTMLElement | null }, version: unknown[]) {
  const current = useRef(onNear);
  current.current = onNear;
  const supported = typeof IntersectionObserver !== 'undefined';
  useEffect(() => {
    if (!supported || !end.current) return;
    const cards = list.current?.querySelectorAll<HTMLElement>('article.card') ?? [];
    const observer = new IntersectionObserver((entries) => entries.some((entry) => entry.isIntersecting) && current.current(), { rootMargin: MARGIN });
    if (cards.length > AHEAD) observer.observe(cards[cards.length - AHEAD]);
    // The end too: a jump (End, the scroll bar) can pass over that card without it ever showing.
    observer.observe(end.current);
    return () => observer.disconnect();
  }, version);
  return supported;
}
