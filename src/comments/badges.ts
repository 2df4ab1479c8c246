import type { Caller } from '../auth/caller.ts';

/**
 * What vouches for a comment's author, as its view shows it (author_badges): staff writing from the
 * dashboard, a moderator's session, a signed-in reader (every session is one: SSO, an identity
 * provider, an emailed code or the site's own backend made it). Keys and guests have none.
 */
export function authorBadges(caller: Caller, moderator: boolean): string[] {
  if (caller.kind === 'staff') return ['staff'];
  if (caller.kind !== 'session') return [];
  return moderator ? ['moderator', 'verified'] : ['verified'];
}
