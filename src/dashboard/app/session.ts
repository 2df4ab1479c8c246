import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { api, must, setCsrfToken, type Answer } from '../client/api.ts';

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

/**
 * The signed-in person (and their CSRF token, kept for every write), or null when nobody is: asked
 * so that nobody is an answer (204), not a failed request in the browser's console.
 */
export async function loadMe(): Promise<Me | null> {
  const call = api.GET('/api/auth/me', { params: { query: { if_signed_in: true } } });
  const me = await must(call);
  if ((await call).response.status === 204) return null;
  setCsrfToken(me.csrf_token);
  return me;
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
