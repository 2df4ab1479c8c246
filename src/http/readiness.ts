import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/connect.ts';
import { sendProblem } from './problems.ts';

/**
 * Where an instance is in its life, as /readyz tells a load balancer:
 * - `migrating`: listening, but the database is not migrated yet (it may wait for another instance
 *   that migrates); every request but the two probes answers 503.
 * - `ready`: serving; /readyz still asks the database each time.
 * - `draining`: SIGTERM came; requests are served as before, but /readyz fails so the load balancer
 *   sends no new ones (for PARLEY_SHUTDOWN_DELAY).
 * - `closing`: the listener is closed and in-flight requests finish; a request on a connection that
 *   is still open answers 503.
 */
export type Phase = 'migrating' | 'ready' | 'draining' | 'closing';

export class Readiness {
  #phase: Phase = 'migrating';
  readonly #whenReady: Array<() => void> = [];

  get phase(): Phase {
    return this.#phase;
  }

  /** Work that needs the migrated database (the webhook worker, the search indexer) starts here. */
  whenReady(start: () => void): void {
    this.#whenReady.push(start);
  }

  ready(): void {
    if (this.#phase !== 'migrating') return;
    this.#phase = 'ready';
    for (const start of this.#whenReady.splice(0)) start();
  }

  drain(): void {
    if (this.#phase !== 'closing') this.#phase = 'draining';
  }

  close(): void {
    this.#phase = 'closing';
  }
}

/** A database that does not answer at all (a dropped network) must not hold the probe open. */
const DATABASE_CHECK_TIMEOUT_MS = 2000;
/** What a client is told to wait while the instance migrates or shuts down (seconds). */
const RETRY_AFTER_SECONDS = 5;

const PROBES = new Set(['/healthz', '/readyz']);

const NOT_READY: Record<Exclude<Phase, 'ready'>, { status: string; detail: string }> = {
  migrating: { status: 'migrating', detail: 'This instance is applying database migrations' },
  draining: { status: 'shutting down', detail: 'This instance is shutting down' },
  closing: { status: 'shutting down', detail: 'This instance is shutting down' },
};

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * GET /healthz (liveness: the process answers, nothing else is asked) and GET /readyz (readiness:
 * 503 with the reason while migrating, shutting down, or while the database does not answer). The
 * hook answers every other request 503 while migrating or closing; it must be the first onRequest
 * hook, so nothing else (credentials, rate limits) touches a database that is not ready.
 */
export function registerHealth(app: FastifyInstance, db: Db, readiness: Readiness): void {
  app.addHook('onRequest', async (request, reply) => {
    const phase = readiness.phase;
    if ((phase !== 'migrating' && phase !== 'closing') || PROBES.has(request.routeOptions.url ?? '')) return;
    reply.header('Retry-After', RETRY_AFTER_SECONDS);
    return sendProblem(reply, 'service_unavailable', `${NOT_READY[phase].detail}; retry in ${RETRY_AFTER_SECONDS} s`);
  });
  app.addHook('preClose', async () => readiness.close());

  app.get('/healthz', { schema: { hide: true } }, () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    const phase = readiness.phase;
    if (phase !== 'ready') return reply.code(503).send({ status: NOT_READY[phase].status });
    try {
      await withTimeout(db.kysely.selectFrom('accounts').select('id').limit(1).execute(), DATABASE_CHECK_TIMEOUT_MS);
      return { status: 'ready' };
    } catch (error) {
      request.log.warn({ err: error }, 'readiness: the database did not answer');
      return reply.code(503).send({ status: 'database unreachable' });
    }
  });
}
