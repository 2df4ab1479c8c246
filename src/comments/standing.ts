import { sql, type Kysely } from 'kysely';
import { nowIso } from '../clock.ts';
import { preparedQuery } from '../db/prepared.ts';
import type { Database } from '../db/schema.ts';
import { bannedError, hasBan, recordFrom, type AuthorRecord } from '../moderation/bans.ts';
import type { Totals } from '../spam/classifier/model.ts';
import { totalsFrom, type TotalsColumns } from '../spam/classifier/store.ts';

const standingOnSite = preparedQuery((db, _shape: null, siteId: string, authorRef: string | null, urlKey: string, now: string) =>
  sql<{ banned: number | boolean; shadowBanned: number | boolean; threadId: string | null; threadClosedAt: string | null } & Record<keyof AuthorRecord, number | string | null> & TotalsColumns>`select
      ${hasBan('ban', siteId, authorRef, now)} as "banned",
      ${hasBan('shadow_ban', siteId, authorRef, now)} as "shadowBanned",
      a.published as "published", a.pending as "pending", a.removed as "removed", a.spam as "spam",
      t.id as "threadId", t.closed_at as "threadClosedAt",
      m.version, m.spam_examples, m.ham_examples, m.spam_features, m.ham_features
    from (select 1 as one) as o
    left join author_counts as a on a.site_id = ${siteId} and a.author_ref = ${authorRef}
    left join threads as t on t.site_id = ${siteId} and t.url_key = ${urlKey}
    left join classifier_models as m on m.site_id = ${siteId}`.compile(db),
);

/** A new comment's author's standing on its site, its page's thread if it has one yet, and its site's classifier totals. */
export interface NewCommentStanding {
  shadowBanned: boolean;
  /** The author's comments on the site by state, for the spam checks (none for a guest). */
  record: AuthorRecord;
  thread: { id: string; closed_at: string | null } | undefined;
  /** The spam classifier's totals for the site, which tell whether the model kept in memory is current. */
  classifierTotals: Totals;
}

/**
 * What a new comment is checked against, read in one statement (under the author's lock: see
 * findSiteLockingAuthor), as on PostgreSQL each is a round trip: refused outright if its author is
 * banned from the site (403), whether they are shadow-banned (the comment is then hidden from the
 * start), their record there, the thread of its page, and the site's classifier totals (spam
 * checks). A guest (no author) has no ban and no record.
 */
export async function standingOf(db: Kysely<Database>, siteId: string, authorRef: string | null, urlKey: string): Promise<NewCommentStanding> {
  const [row] = await standingOnSite(db, null, siteId, authorRef, urlKey, nowIso());
  if (Number(row.banned) === 1) throw bannedError();
  return {
    shadowBanned: Number(row.shadowBanned) === 1,
    record: recordFrom(row),
    thread: row.threadId === null ? undefined : { id: row.threadId, closed_at: row.threadClosedAt },
    classifierTotals: totalsFrom(row),
  };
}
