import { useEffect, useState } from 'preact/hooks';

/**
 * Client-side routing on real URLs under /dashboard: every view has its own address, so views can
 * be shared and reloaded, and the browser's back and forward move between them.
 */
export const BASE = '/dashboard';
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((listener) => listener());
window.addEventListener('popstate', emit);

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const target = to.startsWith('/') ? to : `${BASE}/${to}`;
  if (target === location.pathname + location.search && !options.replace) return;
  history[options.replace ? 'replaceState' : 'pushState'](null, '', target);
  emit();
}

/** The current URL; the component draws again when it changes. */
export function useUrl(): URL {
  const [, redraw] = useState(0);
  useEffect(() => {
    const listener = () => redraw((n) => n + 1);
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return new URL(location.href);
}

/** The path below /dashboard, without slashes at either end ('' for the dashboard's root). */
export function viewPath(url: URL): string {
  return url.pathname.slice(BASE.length).replace(/^\/+|\/+$/g, '');
}

/** The same view with some query parameters changed (undefined or '' removes one). */
export function withQuery(changes: Record<string, string | undefined | null>, url = new URL(location.href)): string {
  const params = new URLSearchParams(url.search);
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined || value === null || value === '') params.delete(name);
    else params.set(name, value);
  }
  const query = params.toString();
  return url.pathname + (query ? `?${query}` : '');
}

/** An address a link inside the dashboard goes to: /dashboard/<path>. */
export const href = (path: string) => (path ? `${BASE}/${path}` : BASE);

/** A click that the browser should handle itself (a new tab, a download...). */
export function isModifiedClick(event: MouseEvent): boolean {
  return event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey;
}
