import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/connect.ts';
import { recordEvent, withEvents } from '../events/record.ts';
import type { Site } from '../sites/repository.ts';
import { importFile } from './import.ts';
import { failLeftBehind, markCompleted, markFailed, markRunning, recordProgress, renewLeases, STOPPED } from './jobs.ts';
import type { ImportReport } from './report.ts';
import { ImportFileError, type Format } from './source.ts';
import type { Upload } from './upload.ts';

export interface QueuedImport {
  id: string;
  site: Site;
  upload: Upload;
  format: Format;
  dryRun: boolean;
  baseUrl?: string;
  startedBy: { id: string; name: string };
}

/** Progress is written to the job's row at most this often. */
const PROGRESS_EVERY_MS = 1000;

/** What `import.completed` carries: the report's counts, without its list of warnings. */
function summaryOf(job: QueuedImport, report: ImportReport) {
  const { warnings: _listed, dry_run: _dryRun, ...counts } = report;
  return { import: { id: job.id, started_by: job.startedBy, ...counts } };
}

/**
 * Runs the import jobs this instance received, one at a time in the order they came (each import
 * may use a good share of the instance's memory and of the database's write time), with the CLI's
 * own importFile. Renews their leases while they are here; on shutdown the running one stops at
 * its next batch and every job left is marked failed (a rerun completes them: imports are idempotent).
 */
export class ImportRunner {
  readonly #queue: QueuedImport[] = [];
  #current: { job: QueuedImport; abort: AbortController } | null = null;
  /** Settles when the queue has run dry (or stopped). */
  #draining: Promise<void> | null = null;
  #leaseTimer: NodeJS.Timeout | undefined;
  #stopping = false;

  constructor(
    private readonly db: Db,
    private readonly leaseMs: number,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Fails the jobs instances that stopped left queued or running, and keeps this instance's leases. */
  async start(): Promise<void> {
    await failLeftBehind(this.db.kysely);
    this.#leaseTimer = setInterval(() => {
      const ids = [...(this.#current ? [this.#current.job.id] : []), ...this.#queue.map((job) => job.id)];
      renewLeases(this.db.kysely, ids, this.leaseMs).catch((err) => this.log.warn({ err }, 'renewing the leases of import jobs failed; retried shortly'));
    }, this.leaseMs / 3);
    this.#leaseTimer.unref();
  }

  enqueue(job: QueuedImport): void {
    this.#queue.push(job);
    this.#draining ??= this.#drain().finally(() => (this.#draining = null));
  }

  async #drain(): Promise<void> {
    for (let job = this.#queue.shift(); job && !this.#stopping; job = this.#queue.shift()) {
      this.#current = { job, abort: new AbortController() };
      try {
        await this.#run(job, this.#current.abort.signal);
      } finally {
        this.#current = null;
        await job.upload.dispose();
      }
    }
  }

  async #run(job: QueuedImport, signal: AbortSignal): Promise<void> {
    const progress = { read: 0, processed: 0 };
    let lastWrite = 0;
    let writing: Promise<void> = Promise.resolve();
    const kysely = this.db.kysely;
    try {
      await markRunning(kysely, job.id, this.leaseMs);
      const report = await importFile(this.db, {
        siteId: job.site.id,
        path: job.upload.path,
        format: job.format,
        dryRun: job.dryRun,
        baseUrl: job.baseUrl,
        signal,
        onProgress: (stage, count) => {
          if (stage === 'read') progress.read = count;
          else progress.processed = count;
          if (Date.now() - lastWrite < PROGRESS_EVERY_MS) return;
          lastWrite = Date.now();
          const snapshot = { ...progress };
          // In order, and never after the final state: each write waits for the one before.
          writing = writing.then(() => recordProgress(kysely, job.id, snapshot)).catch((err) => this.log.warn({ err, importJob: job.id }, 'recording import progress failed'));
        },
      });
      await writing;
      await withEvents(this.db, async (trx) => {
        await markCompleted(trx, job.id, report, progress);
        if (!job.dryRun) await recordEvent(trx, { accountId: job.site.accountId, siteId: job.site.id, type: 'import.completed', data: summaryOf(job, report) }, job.site);
      });
    } catch (error) {
      await writing;
      if (!(error instanceof ImportFileError) && !signal.aborted) this.log.error({ err: error, importJob: job.id }, 'an import job stopped on an unexpected error');
      const message =
        error instanceof ImportFileError
          ? error.message
          : signal.aborted
            ? STOPPED
            : `The import stopped on an error of the server (logged with the job's id). What it had written is kept; upload the same file again to complete it.`;
      await markFailed(kysely, job.id, message).catch((err) => this.log.error({ err, importJob: job.id }, 'marking an import job failed did not work; it fails once its lease runs out'));
    }
  }

  /** On shutdown: the running import stops at its next batch, and every job still here is marked failed. */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#leaseTimer);
    this.#current?.abort.abort();
    await this.#draining;
    for (const job of this.#queue.splice(0)) {
      // Should this fail too, the job's lease runs out and the next instance to look marks it.
      await markFailed(this.db.kysely, job.id, STOPPED).catch(() => undefined);
      await job.upload.dispose();
    }
  }
}
