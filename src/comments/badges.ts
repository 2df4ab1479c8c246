import { sql, type RawBuilder } from 'kysely';
import type { Caller } from '../auth/caller.ts';

/** What a session's comment is vouched for by when written: a moderator's session, or any signed-in reader's. */
const MODERATOR_SESSION = ['moderator', 'verified'];
const READER_SESSION = ['verified'];

/** Badges that only the way a comment was written gives: no label may read as one. */
export const WRITTEN_BADGES: ReadonlySet<string> = new Set(['staff', ...MODERATOR_SESSION]);

/**
 * What vouches for a comment's author, as its view shows it (author_badges): staff writing from the
 * dashboard, a moderator's session, a signed-in reader (every session is one: SSO, an identity
 * provider, an emailed code or the site's own backend made it), then the labels the site's
 * moderators gave the reader. Keys and guests have none.
 */
export function authorBadges(caller: Caller, moderator: boolean): string[] {
  if (caller.kind === 'staff') return ['staff'];
  if (caller.kind !== 'session') return [];
  return [...(moderator ? MODERATOR_SESSION : READER_SESSION), ...caller.labels];
}

/**
 * SQL: a comment's `author_badges` with its labels replaced by these, its written badges kept. The
 * written ones lead the stored array (authorBadges), and a site user's comments were written by
 * their sessions, so the array starts as one of a session's, or holds labels alone (an import).
 */
export function relabelledBadges(labels: string[]): RawBuilder<string> {
  const written = [MODERATOR_SESSION, READER_SESSION].map(
    (badges) => sql`when author_badges like ${`${JSON.stringify(badges).slice(0, -1)}%`} then ${JSON.stringify([...badges, ...labels])}`,
  );
  return sql<string>`case ${sql.join(written, sql` `)} else ${JSON.stringify(labels)} end`;
}
