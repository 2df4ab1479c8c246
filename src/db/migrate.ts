import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from './connect.ts';
import { inMigrationSession } from './dialect.ts';
import * as initial from './migrations/0001_initial.ts';
import * as webhookDeliveries from './migrations/0002_webhook_deliveries.ts';
import * as topLevelIndexes from './migrations/0003_top_level_indexes.ts';
import * as threadListing from './migrations/0004_thread_listing.ts';
import * as commentsOnlyAuthorSees from './migrations/0005_comments_only_author_sees.ts';
import * as webhookSiteDue from './migrations/0006_webhook_site_due.ts';
import * as listRevisions from './migrations/0007_list_revisions.ts';
import * as marksRevision from './migrations/0008_marks_revision.ts';
import * as commentsOnlyTheySee from './migrations/0009_comments_only_they_see.ts';
import * as voteOrderListing from './migrations/0010_vote_order_listing.ts';
import * as sessionKeys from './migrations/0011_session_keys.ts';
import * as staff from './migrations/0012_staff.ts';
import * as management from './migrations/0013_management.ts';
import * as liveAndSso from './migrations/0014_live_and_sso.ts';
import * as importSources from './migrations/0015_import_sources.ts';
import * as mail from './migrations/0016_mail.ts';
import * as spamDefence from './migrations/0017_spam_defence.ts';
import * as importJobs from './migrations/0018_import_jobs.ts';
import * as queueEventsAndLiveCounts from './migrations/0020_queue_events_and_live_counts.ts';
import * as erasedUsers from './migrations/0021_erased_users.ts';
import * as spamSignalsIpPartial from './migrations/0022_spam_signals_ip_partial.ts';
import * as spamSignalsLean from './migrations/0023_spam_signals_lean.ts';
import * as queueCounts from './migrations/0024_queue_counts.ts';
import * as mailOutboxSite from './migrations/0025_mail_outbox_site.ts';
import * as spamSignalsByTime from './migrations/0026_spam_signals_by_time.ts';
import * as liveEventsIdsOnly from './migrations/0027_live_events_ids_only.ts';
import * as mailSubscriptionConfirmation from './migrations/0028_mail_subscription_confirmation.ts';
import * as staffEmailVerified from './migrations/0029_staff_email_verified.ts';
import * as readerAccounts from './migrations/0030_reader_accounts.ts';
import * as readerSelfService from './migrations/0031_reader_self_service.ts';
import * as richComments from './migrations/0032_rich_comments.ts';
import * as languages from './migrations/0033_languages.ts';
import * as recentComments from './migrations/0034_recent_comments.ts';
import * as spamClassifier from './migrations/0035_spam_classifier.ts';
import * as queueSearchAndUndo from './migrations/0036_queue_search_and_undo.ts';
import * as notifications from './migrations/0037_notifications.ts';
import * as chatAlerts from './migrations/0038_chat_alerts.ts';
import * as contestedDecisions from './migrations/0039_contested_decisions.ts';
import * as mailDigests from './migrations/0040_mail_digests.ts';
import * as commentCounts from './migrations/0041_comment_counts.ts';
import * as recentByTime from './migrations/0042_recent_by_time.ts';

/**
 * Migrations are listed here explicitly (no directory scan), in order. They are additive only (new
 * tables, new nullable or defaulted columns, new indexes; never a rename, drop or type change of a
 * table or column the previous release uses), so a migration can run while instances of the
 * previous version still serve. They run under a lock (see inMigrationSession), so two instances
 * starting at once do not both migrate. Numbers are handed out to changes made side by side, so one
 * may be applied before a lower one that lands later: that one is applied when it arrives (each
 * touches only what it names).
 */
const MIGRATIONS: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_webhook_deliveries': webhookDeliveries,
  '0003_top_level_indexes': topLevelIndexes,
  '0004_thread_listing': threadListing,
  '0005_comments_only_author_sees': commentsOnlyAuthorSees,
  '0006_webhook_site_due': webhookSiteDue,
  '0007_list_revisions': listRevisions,
  '0008_marks_revision': marksRevision,
  '0009_comments_only_they_see': commentsOnlyTheySee,
  '0010_vote_order_listing': voteOrderListing,
  '0011_session_keys': sessionKeys,
  '0012_staff': staff,
  '0013_management': management,
  '0014_live_and_sso': liveAndSso,
  '0015_import_sources': importSources,
  '0016_mail': mail,
  '0017_spam_defence': spamDefence,
  '0018_import_jobs': importJobs,
  '0020_queue_events_and_live_counts': queueEventsAndLiveCounts,
  '0021_erased_users': erasedUsers,
  '0022_spam_signals_ip_partial': spamSignalsIpPartial,
  '0023_spam_signals_lean': spamSignalsLean,
  '0024_queue_counts': queueCounts,
  '0025_mail_outbox_site': mailOutboxSite,
  '0026_spam_signals_by_time': spamSignalsByTime,
  '0027_live_events_ids_only': liveEventsIdsOnly,
  '0028_mail_subscription_confirmation': mailSubscriptionConfirmation,
  '0029_staff_email_verified': staffEmailVerified,
  '0030_reader_accounts': readerAccounts,
  '0031_reader_self_service': readerSelfService,
  '0032_rich_comments': richComments,
  '0033_languages': languages,
  '0034_recent_comments': recentComments,
  '0035_spam_classifier': spamClassifier,
  '0036_queue_search_and_undo': queueSearchAndUndo,
  '0037_notifications': notifications,
  '0038_chat_alerts': chatAlerts,
  '0039_contested_decisions': contestedDecisions,
  '0040_mail_digests': mailDigests,
  '0041_comment_counts': commentCounts,
  '0042_recent_by_time': recentByTime,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

export async function migrateToLatest(db: Db): Promise<string[]> {
  return inMigrationSession(db.kysely, db.dialect, async (session) => {
    // A migration may land after a higher-numbered one was applied; each is additive and independent
    // of the others' order, so a later-landing lower number still runs.
    const { error, results } = await new Migrator({ db: session, provider, allowUnorderedMigrations: true }).migrateToLatest();
    // Thrown inside the session, so SQLite rolls the failed run back as PostgreSQL does.
    if (error) throw error instanceof Error ? error : new Error(String(error));
    return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  });
}

/** Applies the migrations up to and including `name`, as a database of an earlier version had them (scripts/migration-time.ts). */
export async function migrateTo(db: Db, name: string): Promise<void> {
  await inMigrationSession(db.kysely, db.dialect, async (session) => {
    const { error } = await new Migrator({ db: session, provider, allowUnorderedMigrations: true }).migrateTo(name);
    if (error) throw error instanceof Error ? error : new Error(String(error));
  });
}

/** The migrations this version has that the database has not applied (read only: creates nothing). */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const known = await new Migrator({ db: db.kysely, provider, allowUnorderedMigrations: true }).getMigrations();
  return known.filter((migration) => migration.executedAt === undefined).map((migration) => migration.name);
}
