/** Pinned top-level comments a thread holds at most (POST /v1/comments/:id/pin). */
export const MAX_PINNED = 3;

/** A range of a listing: how many entries to pass over, and how many to take. */
export interface Window {
  offset: number;
  limit: number;
}

/**
 * A page of a list led by its pinned comments: the list reads as the pinned ones (oldest pin first)
 * followed by the others in the page's order, cut into pages of `limit`. So page 1 holds the pinned
 * ones and fewer of the others, and every later page starts that many earlier among the others: none
 * is skipped or shown twice. Answers the pinned ones this page shows, and its window of the others.
 */
export function pageAfterPinned<T>(pinned: T[], page: number, limit: number): { leading: T[]; rest: Window } {
  const start = (page - 1) * limit;
  const leading = pinned.slice(start, start + limit);
  return { leading, rest: { offset: Math.max(0, start - pinned.length), limit: limit - leading.length } };
}
