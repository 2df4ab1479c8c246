import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Db } from '../db/connect.ts';
import { failLeftBehind, findJobById, markFailed, renewLeases, STOPPED, wroteSince } from './jobs.ts';
import type { Upload } from './upload.ts';

export interface QueuedImport {
  id: string;
  siteId: string;
  upload: Upload;
  baseUrl?: string;
}

/** `parley`'s own entry point, from the sources (src/transfer) or from the bundle (dist/parley.js). */
const BIN = fileURLToPath(new URL(import.meta.url.endsWith('/dist/parley.js') ? '../bin/parley.js' : '../../bin/parley.js', import.meta.url));

const CRASHED = 'The import process stopped on an error (logged by the server with the job id). What it had written is kept; upload the same file again to complete it.';

/** What V8 writes to stderr when a process reaches its heap limit (before it aborts). */
const OUT_OF_HEAP = /JavaScript heap out of memory|Reached heap limit/;

/** The job's error when its process reached PARLEY_IMPORT_MAX_MEMORY: whether it had begun writing decides what the person can do. */
export function outOfMemory(limitMib: number, wroteSomething: boolean): string {
  return wroteSomething
    ? `The import needed more than the ${limitMib} MiB of memory an import may use (PARLEY_IMPORT_MAX_MEMORY) and was stopped while writing comments. What it had written is kept; once the server's operator has raised the limit, upload the same file again to complete it (nothing is imported twice).`
    : `The import needed more than the ${limitMib} MiB of memory an import may use (PARLEY_IMPORT_MAX_MEMORY) and was stopped before writing anything: nothing of the file was imported. A record of the file may be unusually large; the server's operator can raise the limit.`;
}

/** What the import process needs of the server's configuration: its database (and Redis, to tell other instances). */
function importEnv(config: Config): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: config.databaseUrl,
    PARLEY_DATABASE_POOL_SIZE: '2',
    PARLEY_DATABASE_STATEMENT_TIMEOUT_MS: String(config.databaseStatementTimeoutMs),
    PARLEY_DATABASE_SSL: String(config.databaseSsl),
    REDIS_URL: config.redisUrl ?? '',
    PARLEY_RATE_LIMIT_REDIS_PREFIX: config.rateLimits.redisKeyPrefix,
    LOG_LEVEL: config.logLevel,
  };
}

/**
 * Runs the import jobs this instance received, one at a time in the order they came, each as
 * `parley import --job` in a process of its own: the CLI's code, its memory bound, and none of its
 * synchronous work on this server's event loop (a 100,000-comment import held it for seconds at a
 * time). The process exits when this one does (its stdin closes). Keeps the jobs' leases while they
 * are here; on shutdown stops the running import and marks every job left failed (a rerun completes
 * them: imports are idempotent).
 */
export class ImportRunner {
  readonly #queue: QueuedImport[] = [];
  #child: ChildProcess | null = null;
  #current: QueuedImport | null = null;
  /** Settles when the queue has run dry (or stopped). */
  #draining: Promise<void> | null = null;
  #leaseTimer: NodeJS.Timeout | undefined;
  #stopping = false;

  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Fails the jobs that stopped instances left queued or running, and keeps this instance's leases. */
  async start(): Promise<void> {
    await failLeftBehind(this.db.kysely);
    this.#leaseTimer = setInterval(() => {
      const ids = [...(this.#current ? [this.#current.id] : []), ...this.#queue.map((job) => job.id)];
      renewLeases(this.db.kysely, ids, this.config.importLeaseMs).catch((err) => this.log.warn({ err }, 'renewing the leases of import jobs failed; retried shortly'));
    }, this.config.importLeaseMs / 3);
    this.#leaseTimer.unref();
  }

  enqueue(job: QueuedImport): void {
    this.#queue.push(job);
    this.#draining ??= this.#drain().finally(() => (this.#draining = null));
  }

  async #drain(): Promise<void> {
    for (let job = this.#queue.shift(); job && !this.#stopping; job = this.#queue.shift()) {
      this.#current = job;
      try {
        await this.#run(job);
      } catch (err) {
        this.log.error({ err, importJob: job.id }, 'an import job could not be run');
        await markFailed(this.db.kysely, job.id, CRASHED).catch(() => undefined);
      } finally {
        this.#current = null;
        await job.upload.dispose();
      }
    }
  }

  async #run(job: QueuedImport): Promise<void> {
    const args = ['import', '--site', job.siteId, job.upload.path, '--job', job.id, ...(job.baseUrl ? ['--base-url', job.baseUrl] : [])];
    const heapLimit = `--max-old-space-size=${this.config.importMaxMemoryMib}`;
    const child = spawn(process.execPath, [heapLimit, BIN, ...args], { env: importEnv(this.config), stdio: ['pipe', 'ignore', 'pipe'] });
    this.#child = child;
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    // 'close', not 'exit': after it, all the process wrote to stderr has been read.
    const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
    this.#child = null;
    const finished = await findJobById(this.db.kysely, job.id);
    if (finished?.status === 'completed') {
      // Its cached pages are stale in this instance (others hear it through Redis), and its
      // import.completed delivery is waiting for the worker.
      if (finished.dry_run === 0) this.db.changes.siteChanged(job.siteId);
      this.db.changes.deliveriesQueued();
      return;
    }
    if (finished?.status === 'failed') return;
    if (finished && OUT_OF_HEAP.test(stderr)) {
      this.log.warn({ importJob: job.id, limitMib: this.config.importMaxMemoryMib }, 'an import process ran out of memory');
      const wrote = finished.dry_run === 0 && finished.started_at !== null && (await wroteSince(this.db.kysely, job.siteId, finished.started_at));
      await markFailed(this.db.kysely, job.id, outOfMemory(this.config.importMaxMemoryMib, wrote));
      return;
    }
    if (!this.#stopping) this.log.error({ importJob: job.id, code, signal, stderr }, 'an import process ended without finishing its job');
    await markFailed(this.db.kysely, job.id, this.#stopping ? STOPPED : CRASHED);
  }

  /** On shutdown: the running import process is stopped, and every job still here is marked failed. */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#leaseTimer);
    this.#child?.kill('SIGTERM');
    await this.#draining;
    for (const job of this.#queue.splice(0)) {
      // Should this fail too, the job's lease runs out and the next instance to look marks it.
      await markFailed(this.db.kysely, job.id, STOPPED).catch(() => undefined);
      await job.upload.dispose();
    }
  }
}
