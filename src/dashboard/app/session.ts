import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { api, ApiError, must, setCsrfToken, type Answer } from '../client/api.ts';

export type Me = Answer<'/api/auth/me'>;
export type Site = Answer<'/api/sites'>['sites'][number];

/** Who is signed in and the sites they moderate or administer, for every view. */
export interface Session {
  me: Me;
  sites: Site[];
  reloadSites: () => Promise<void>;
  /** Saves the person's language (null: the browser's) and speaks it. */
  chooseLanguage: (language: Me['language']) => Promise<void>;
  signOut: () => Promise<void>;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  return useContext(SessionContext)!;
}

/** The signed-in person (and their CSRF token, kept for every write), or null when nobody is. */
export async function loadMe(): Promise<Me | null> {
  try {
    const me = await must(api.GET('/api/auth/me'));
    setCsrfToken(me.csrf_token);
    return me;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

export async function loadSites(): Promise<Site[]> {
  return (await must(api.GET('/api/sites'))).sites;
}

/** Owners and admins run sites, keys, webhooks and the team; moderators moderate. */
export const administers = (me: Me) => me.memberships.some((m) => m.role === 'owner' || m.role === 'admin');

/** The accounts where the person may manage the team (owner or admin). */
export const managedAccounts = (me: Me) => me.memberships.filter((m) => m.role === 'owner' || m.role === 'admin');

/** The site a per-site view shows: the one in the URL, else the first. */
export function chosenSite(sites: Site[], url: URL): Site | null {
  const id = url.searchParams.get('site');
  return sites.find((site) => site.id === id) ?? sites[0] ?? null;
}
