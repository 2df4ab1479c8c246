/**
 * The session of a reader who signed in through the widget, kept in the embedding page's own
 * storage (first-party, so blocking third-party cookies takes nothing away), one per site.
 */
const PREFIX = 'parley:session:';
/** Where an email link or a sign-in in redirect mode lands: `return_to#parley_session=<token>`. */
const IN_URL = /([#&])parley_session=([^&]*)&?/;

/** The site a storage key is about, or null for another key. */
export function siteOfKey(key: string | null): string | null {
  return key?.startsWith(PREFIX) ? key.slice(PREFIX.length) : null;
}

/** Storage may be refused (a sandboxed frame, a browser setting): the reader then stays signed in until the page closes. */
const kept = new Map<string, string>();

export function storedSession(siteId: string): string | null {
  try {
    return localStorage.getItem(PREFIX + siteId);
  } catch {
    return kept.get(siteId) ?? null;
  }
}

export function storeSession(siteId: string, token: string | null): void {
  if (token === null) kept.delete(siteId);
  else kept.set(siteId, token);
  try {
    if (token === null) localStorage.removeItem(PREFIX + siteId);
    else localStorage.setItem(PREFIX + siteId, token);
  } catch {
    // kept in memory above
  }
}

/**
 * A session token the page's address carries, taken out of it (the address is seen in the
 * history, bookmarks and shared links). Null when there is none.
 */
export function takeSessionFromUrl(): string | null {
  const match = IN_URL.exec(location.hash);
  if (!match) return null;
  const rest = location.hash.replace(IN_URL, (_whole, lead: string) => lead).replace(/[#&]$/, '');
  history.replaceState(history.state, '', location.pathname + location.search + rest);
  return decodeURIComponent(match[2]) || null;
}
