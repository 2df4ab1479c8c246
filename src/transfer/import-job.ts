import type { Db } from '../db/connect.ts';
import { recordEvent, withEvents } from '../events/record.ts';
import { findSite } from '../sites/repository.ts';
import { importFile } from './import.ts';
import { findJobById, markCompleted, markFailed, markRunning, recordProgress, type JobRow } from './jobs.ts';
import type { ImportReport } from './report.ts';
import { ImportFileError, type Format } from './source.ts';

/** Progress is written to the job's row at most this often. */
const PROGRESS_EVERY_MS = 1000;

/** What `import.completed` carries: the report's counts, without its list of warnings. */
function summaryOf(job: JobRow, report: ImportReport) {
  const { warnings: _listed, dry_run: _dryRun, ...counts } = report;
  return { import: { id: job.id, started_by: { id: job.started_by_ref, name: job.started_by_name }, ...counts } };
}

/**
 * Runs one import job of the management API: `parley import --job ID`, in the process the instance
 * that received the file starts for it (job-runner.ts), so the import's synchronous passes over its
 * staging file, its memory and its crashes stay out of the server. The job's row follows it:
 * running, progress, then completed with the report (and one import.completed event, in the same
 * transaction) or failed with the file's error. Other errors are thrown (the process fails, and the
 * server marks the job failed).
 */
export async function runImportJob(db: Db, jobId: string, file: { path: string; baseUrl?: string }): Promise<void> {
  const job = await findJobById(db.kysely, jobId);
  if (!job) throw new Error(`no import job ${jobId}`);
  const site = await findSite(db.kysely, job.site_id);
  if (!site) throw new Error(`no site ${job.site_id}`);
  const progress = { read: 0, processed: 0 };
  let lastWrite = 0;
  // In order, and never after the final state: each write waits for the one before.
  let writing: Promise<void> = Promise.resolve();
  await markRunning(db.kysely, jobId);
  let report: ImportReport;
  try {
    report = await importFile(db, {
      siteId: site.id,
      path: file.path,
      format: job.format as Format,
      dryRun: job.dry_run === 1,
      baseUrl: file.baseUrl,
      onProgress: (stage, count) => {
        if (stage === 'read') progress.read = count;
        else progress.processed = count;
        if (Date.now() - lastWrite < PROGRESS_EVERY_MS) return;
        lastWrite = Date.now();
        const snapshot = { ...progress };
        writing = writing.then(() => recordProgress(db.kysely, jobId, snapshot));
      },
    });
  } catch (error) {
    await writing;
    if (!(error instanceof ImportFileError)) throw error;
    await markFailed(db.kysely, jobId, error.message);
    return;
  }
  await writing;
  await withEvents(db, async (trx) => {
    await markCompleted(trx, jobId, report, progress);
    if (!report.dry_run) await recordEvent(trx, { accountId: site.accountId, siteId: site.id, type: 'import.completed', data: summaryOf(job, report) }, site);
  });
}
