import type { Kysely, Selectable } from 'kysely';
import type { Actor } from '../audit/audit.ts';
import { nowIso } from '../clock.ts';
import { toCount } from '../db/dialect.ts';
import type { Database, ImportJobTable } from '../db/schema.ts';
import type { ImportReport } from './report.ts';
import type { Format } from './source.ts';

/** An import job's rows and what the API shows of them (routes.ts). */

export const JOB_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/**
 * A queued or running job holds a lease (config.importLeaseMs) its instance renews while it lives;
 * one past its lease was left by an instance that stopped (a crash, a kill), and is marked failed
 * by whoever looks first: an instance starting, or a read of the site's jobs.
 */
export const STOPPED =
  'The server stopped while this import was queued or running. What it had written is kept; upload the same file again to complete it (nothing is imported twice).';

export type JobRow = Selectable<ImportJobTable>;

export interface NewJob {
  id: string;
  siteId: string;
  format: Format | null;
  dryRun: boolean;
  fileBytes: number;
  actor: Actor;
}

function leaseFrom(leaseMs: number): string {
  return new Date(Date.now() + leaseMs).toISOString();
}

export async function insertJob(db: Kysely<Database>, job: NewJob, leaseMs: number): Promise<void> {
  await db
    .insertInto('import_jobs')
    .values({
      id: job.id,
      site_id: job.siteId,
      status: 'queued',
      format: job.format,
      dry_run: job.dryRun ? 1 : 0,
      file_bytes: job.fileBytes,
      report: null,
      error: null,
      error_line: null,
      started_by_ref: job.actor.ref,
      started_by_name: job.actor.name,
      created_at: nowIso(),
      started_at: null,
      finished_at: null,
      lease_until: leaseFrom(leaseMs),
    })
    .execute();
}

/** The site's queued or running import, if any (after leftBehind has failed the abandoned ones). */
export async function activeJob(db: Kysely<Database>, siteId: string): Promise<string | undefined> {
  const row = await db.selectFrom('import_jobs').select('id').where('site_id', '=', siteId).where('status', 'in', ['queued', 'running']).executeTakeFirst();
  return row?.id;
}

/** Marks failed the queued and running jobs whose instance stopped renewing their lease (of one site, or all). */
export async function failLeftBehind(db: Kysely<Database>, siteId?: string): Promise<void> {
  const now = nowIso();
  let update = db
    .updateTable('import_jobs')
    .set({ status: 'failed', error: STOPPED, finished_at: now })
    .where('status', 'in', ['queued', 'running'])
    .where('lease_until', '<', now);
  if (siteId) update = update.where('site_id', '=', siteId);
  await update.execute();
}

export async function renewLeases(db: Kysely<Database>, ids: string[], leaseMs: number): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('import_jobs').set({ lease_until: leaseFrom(leaseMs) }).where('id', 'in', ids).where('status', 'in', ['queued', 'running']).execute();
}

export async function markRunning(db: Kysely<Database>, id: string): Promise<void> {
  await db.updateTable('import_jobs').set({ status: 'running', started_at: nowIso() }).where('id', '=', id).where('status', '=', 'queued').execute();
}

export async function recordProgress(db: Kysely<Database>, id: string, progress: { read: number; processed: number }): Promise<void> {
  await db
    .updateTable('import_jobs')
    .set({ records_read: progress.read, comments_processed: progress.processed })
    .where('id', '=', id)
    .execute();
}

/** Also over a job marked failed meanwhile as left behind (its instance was too busy to renew the lease): it did finish. */
export async function markCompleted(db: Kysely<Database>, id: string, report: ImportReport, progress: { read: number; processed: number }): Promise<void> {
  await db
    .updateTable('import_jobs')
    .set({ status: 'completed', report: JSON.stringify(report), records_read: progress.read, comments_processed: progress.processed, error: null, finished_at: nowIso() })
    .where('id', '=', id)
    .execute();
}

/** The line an import error names ("line 12: …", "line 12 (post p3): …"), for the job's `error.line`. */
export function lineOf(message: string): number | null {
  const match = /^line (\d+)\b/.exec(message);
  return match ? Number(match[1]) : null;
}

export async function markFailed(db: Kysely<Database>, id: string, message: string): Promise<void> {
  await db
    .updateTable('import_jobs')
    .set({ status: 'failed', error: message, error_line: lineOf(message), finished_at: nowIso() })
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'running'])
    .execute();
}

/** Whether an import wrote comments to the site since `since` (each comment it writes maps its source key then). */
export async function wroteSince(db: Kysely<Database>, siteId: string, since: string): Promise<boolean> {
  const row = await db.selectFrom('import_sources').select('comment_id').where('site_id', '=', siteId).where('created_at', '>=', since).limit(1).executeTakeFirst();
  return row !== undefined;
}

export async function findJobById(db: Kysely<Database>, id: string): Promise<JobRow | undefined> {
  return db.selectFrom('import_jobs').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findJob(db: Kysely<Database>, siteId: string, id: string): Promise<JobRow | undefined> {
  return db.selectFrom('import_jobs').selectAll().where('site_id', '=', siteId).where('id', '=', id).executeTakeFirst();
}

/** The site's import jobs, newest first. */
export async function listJobs(db: Kysely<Database>, siteId: string, page: number, limit: number): Promise<{ rows: JobRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('import_jobs')
      .selectAll()
      .where('site_id', '=', siteId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset((page - 1) * limit)
      .execute(),
    db.selectFrom('import_jobs').select((eb) => eb.fn.countAll<string | number>().as('total')).where('site_id', '=', siteId).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: toCount(count.total) };
}

export function jobView(row: JobRow) {
  return {
    id: row.id,
    site_id: row.site_id,
    status: row.status as JobStatus,
    format: row.format as Format | null,
    dry_run: row.dry_run === 1,
    file_bytes: Number(row.file_bytes),
    progress: { records_read: Number(row.records_read), comments_processed: Number(row.comments_processed) },
    report: row.report === null ? null : (JSON.parse(row.report) as ImportReport),
    error: row.error === null ? null : { message: row.error, line: row.error_line === null ? null : Number(row.error_line) },
    started_by: { id: row.started_by_ref, name: row.started_by_name },
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
  };
}
