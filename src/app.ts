import Fastify, { type FastifyInstance } from 'fastify';
import { resolveCaller, credentialOf } from './auth/caller.ts';
import { commenterRoutes } from './commenters/routes.ts';
import { commentRoutes } from './comments/routes.ts';
import { contestRoutes } from './contests/routes.ts';
import { countRoutes } from './counts/routes.ts';
import { recentRoutes } from './recent/routes.ts';
import { formattingRoutes } from './formatting/routes.ts';
import { mentionRoutes } from './mentions/routes.ts';
import { commentCaches, responseCacheCounts } from './comments/caches.ts';
import { CommentSchema } from './comments/schemas.ts';
import type { Config } from './config.ts';
import { dashboardRoutes } from './dashboard/routes.ts';
import { connect, type Db } from './db/connect.ts';
import { migrateToLatest } from './db/migrate.ts';
import { startSearchIndexer, type SearchIndexer } from './db/search-index.ts';
import { registerCors } from './http/cors.ts';
import { Readiness, registerHealth } from './http/readiness.ts';
import { registerJsonParser } from './http/json-body.ts';
import { registerOpenApi } from './http/openapi.ts';
import { logRequest, requestIds } from './http/logging.ts';
import { clientErrorProblem, frameworkErrorProblem, registerProblemHandlers } from './http/problems.ts';
import { Problem } from './http/schemas.ts';
import { registerNulGuard, registerValidators } from './http/validation.ts';
import { keyRoutes } from './keys/routes.ts';
import { KeyUse } from './keys/last-used.ts';
import { moderationManagementRoutes } from './moderation/management-routes.ts';
import { LiveHub } from './live/hub.ts';
import { liveRoutes } from './live/routes.ts';
import { METRICS_PATH, registerMetrics } from './metrics/routes.ts';
import { Tally } from './metrics/tally.ts';
import { moderationRoutes } from './moderation/routes.ts';
import { openConfirmMailLimiter } from './ratelimits/confirm-mails.ts';
import { registerRateLimits } from './ratelimits/limits.ts';
import { identityProviderRoutes } from './readers/providers/management-routes.ts';
import { providerSignInRoutes } from './readers/providers/routes.ts';
import { openSignInLimiter } from './ratelimits/sign-in-mails.ts';
import { readerEmailRoutes } from './readers/email/routes.ts';
import { startErasureSweeper, type ErasureSweeper } from './readers/me/erasure.ts';
import { meRoutes } from './readers/me/routes.ts';
import { sessionRoutes } from './sessions/routes.ts';
import { registerStaffAuth, staffCallerOf } from './staff/cookie-auth.ts';
import { staffAuthRoutes } from './staff/routes.ts';
import { teamRoutes } from './staff/team-routes.ts';
import { siteRoutes } from './sites/routes.ts';
import { ssoRoutes } from './sso/routes.ts';
import { statsRoutes } from './stats/routes.ts';
import { classifierRoutes } from './spam/classifier/routes.ts';
import { threadRoutes } from './threads/routes.ts';
import { ImportRunner } from './transfer/job-runner.ts';
import { transferRoutes } from './transfer/routes.ts';
import { voteRoutes } from './votes/routes.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import { alertRoutes } from './alerts/routes.ts';
import { deliveryPolicy } from './webhooks/service.ts';
import { startDeliveryWorker, type DeliveryWorker } from './webhooks/worker.ts';
import { widgetRoutes } from './widget/routes.ts';
import { ThreadPages } from './thread-html/fragment.ts';
import { threadHtmlRoutes } from './thread-html/routes.ts';
import { AppError } from './errors.ts';
import { mailRoutes } from './mail/routes.ts';
import { startMailWorker, type MailWorker } from './mail/worker.ts';
import { notificationRoutes } from './notifications/routes.ts';
import { startNotificationWorker, type NotificationWorker } from './notifications/worker.ts';

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    config: Config;
    readiness: Readiness;
  }
  interface FastifyContextConfig {
    /** Counts against the per-user and per-guest comment limits. */
    commentCreation?: boolean;
    /** A guest's request counts against the per-guest vote limit (votes, their removal, reactions). */
    guestVote?: boolean;
    /** A refused request is answered once its body is read (a form's post goes back to its page with the reason). */
    refusedAfterBody?: boolean;
  }
  interface FastifyRequest {
    /** The limit's refusal of a `refusedAfterBody` route, thrown by the route once it knows where to answer. */
    deferredRefusal: AppError | null;
  }
}

export const BODY_LIMIT = 64 * 1024;
/** Request line plus headers; a longer query string is refused with 431 (Node's default, stated). */
export const MAX_HEADER_SIZE = 16 * 1024;

/**
 * Builds the whole service for a configuration, migrated and ready, before it listens (tests, the
 * benchmarks). `parley serve` listens first and migrates then (server.ts), so that /readyz can say so.
 */
export async function buildApp(config: Config): Promise<FastifyInstance> {
  const app = await createApp(config);
  await migrateToLatest(app.db);
  app.readiness.ready();
  return app;
}

/**
 * Builds the whole service: plugins, every module, and a database connection that nothing uses
 * until the caller has migrated it and called `app.readiness.ready()`.
 */
export async function createApp(config: Config): Promise<FastifyInstance> {
  const db = connect(config);
  const readiness = new Readiness();

  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]'], censor: '[redacted]' },
      serializers: { req: logRequest },
    },
    bodyLimit: BODY_LIMIT,
    genReqId: requestIds(config.trustProxy),
    trustProxy: config.trustProxy.length > 0 ? config.trustProxy : false,
    requestTimeout: config.http.requestTimeoutMs,
    connectionTimeout: config.http.idleTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    maxRequestsPerSocket: 1000,
    // Time-outs are checked every second, so a slow client is cut off within a second of its limit.
    http: { headersTimeout: config.http.headersTimeoutMs, maxHeaderSize: MAX_HEADER_SIZE, connectionsCheckingInterval: 1000 },
    routerOptions: { maxParamLength: 200 },
    frameworkErrors: frameworkErrorProblem,
    clientErrorHandler: clientErrorProblem,
    // Requests on connections still open while the server closes answer 503 with the reason (readiness.ts).
    return503OnClosing: false,
  });
  app.decorate('db', db);
  app.decorate('config', config);
  app.decorate('readiness', readiness);
  app.decorateRequest('caller', null as never);
  app.decorateRequest('deferredRefusal', null);
  app.addHook('onClose', () => db.close());

  registerHealth(app, db, readiness);
  registerValidators(app);
  registerJsonParser(app);
  registerNulGuard(app);
  registerProblemHandlers(app);
  app.addSchema(Problem);
  app.addSchema(CommentSchema);
  await registerOpenApi(app);

  // Stored comments are user HTML-looking text: browsers must never sniff a JSON answer into a page.
  // The request id on every answer, as on every log line of the request: what a report quotes.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('x-request-id', request.id);
    done(null, payload);
  });
  const rateLimitRefusals = new Tally();
  const webhookOutcomes = new Tally();
  const hub = new LiveHub(db, config.live, app.log);
  const caches = commentCaches(db.changes, config.responseCacheMb, config.subtreeCacheMb);
  if (config.metricsToken) {
    const responseCache = () => responseCacheCounts(caches);
    registerMetrics(app, config.metricsToken, { db, openStreams: () => hub.openStreams, responseCache, rateLimitRefusals, webhookOutcomes });
  }
  const admit = await registerRateLimits(app, config, rateLimitRefusals);
  await registerStaffAuth(app);
  const keyUse = new KeyUse();
  app.addHook('onRequest', async (request, reply) => {
    try {
      // The metrics token is no credential of a caller: /metrics checks it itself.
      const credential = request.routeOptions.url === METRICS_PATH ? null : credentialOf(request);
      // A staff cookie counts only where no credential header is sent (and only under /api/).
      const staff = credential === null && request.headers.cookie !== undefined ? await staffCallerOf(db, request) : null;
      request.caller = staff ?? (await resolveCaller(db, credential, request.ip));
      // In memory; written once a minute per key (keys/last-used.ts).
      if (request.caller.kind === 'key') keyUse.note(request.caller.keyId);
    } finally {
      // Also when the credential is refused: that request counts as its IP's, and may be a 429.
      // Counted in process, the check answers at once, and nothing is awaited.
      try {
        const admitting = admit(request, reply, request.caller);
        if (admitting) await admitting;
      } catch (refusal) {
        if (!(request.routeOptions.config.refusedAfterBody && refusal instanceof AppError)) throw refusal;
        request.deferredRefusal = refusal;
      }
    }
  });
  registerCors(app, db);

  if (config.redisUrl) db.changes.connectRedis(config.redisUrl, config.rateLimits.redisKeyPrefix, app.log);
  const deps = { db };
  // Before the server stops accepting: open streams would otherwise hold the close forever.
  app.addHook('preClose', async () => hub.close());
  await app.register(liveRoutes, { db, hub });
  const confirmMails = config.mail ? await openConfirmMailLimiter(config, app.log) : null;
  app.addHook('onClose', () => confirmMails?.close());
  await app.register(commentRoutes, { db, caches, confirmMails });
  await app.register(countRoutes, { db, caches });
  await app.register(recentRoutes, { db, publicUrl: config.publicUrl });
  // Threads as HTML have a quarter of the public responses' memory besides the lists' and comments'.
  const pages = new ThreadPages(db.changes, config.responseCacheMb * 1024 * 1024 * 0.25, caches.lists, config.publicUrl);
  await app.register(threadHtmlRoutes, { db, caches, pages, publicUrl: config.publicUrl, confirmMails });
  await app.register(formattingRoutes, deps);
  await app.register(mentionRoutes, deps);
  await app.register(voteRoutes, deps);
  await app.register(moderationRoutes, deps);
  await app.register(sessionRoutes, deps);
  await app.register(siteRoutes, deps);
  await app.register(keyRoutes, { db, keyUse });
  await app.register(moderationManagementRoutes, deps);
  await app.register(contestRoutes, deps);
  await app.register(commenterRoutes, deps);
  await app.register(threadRoutes, deps);
  await app.register(statsRoutes, deps);
  await app.register(classifierRoutes, deps);
  await app.register(ssoRoutes, deps);
  await app.register(webhookRoutes, deps);
  await app.register(alertRoutes, deps);
  await app.register(staffAuthRoutes, deps);
  await app.register(teamRoutes, deps);
  await app.register(widgetRoutes, { db, eraseGraceMs: config.eraseGraceMs, pages });
  const runner = new ImportRunner(db, config, app.log);
  await app.register(transferRoutes, { db, runner });
  await app.register(dashboardRoutes, { db, localesFolder: config.dashboardLocales });
  await app.register(mailRoutes, deps);
  await app.register(identityProviderRoutes, { db, config });
  await app.register(providerSignInRoutes, { db, config });
  const signInLimiter = config.mail ? await openSignInLimiter(config, app.log) : null;
  app.addHook('onClose', () => signInLimiter?.close());
  await app.register(readerEmailRoutes, { db, limiter: signInLimiter, publicUrl: config.publicUrl });
  await app.register(meRoutes, { db, eraseGraceMs: config.eraseGraceMs });
  await app.register(notificationRoutes, { db });

  // Hooks run in reverse order on close: the worker drains its attempts before the database closes.
  let worker: DeliveryWorker | undefined;
  let mailWorker: MailWorker | undefined;
  let notificationWorker: NotificationWorker | undefined;
  let indexer: SearchIndexer | undefined;
  let erasures: ErasureSweeper | undefined;
  readiness.whenReady(() => {
    worker = startDeliveryWorker(db, deliveryPolicy(config), app.log, webhookOutcomes);
    if (config.mail) mailWorker = startMailWorker(db, config.mail, app.log);
    notificationWorker = startNotificationWorker(db, app.log);
    indexer = startSearchIndexer(db, (err) => app.log.warn({ err }, 'indexing comments for search failed; retried in a moment'));
    db.spamSignals.reportErrorsTo((err) => app.log.warn({ err }, 'writing or reading spam signals failed; tried again in a moment'));
    keyUse.start(db.kysely, (err) => app.log.warn({ err }, "recording when API keys were last used failed; retried in a minute"));
    erasures = startErasureSweeper(db, app.log);
    runner.start().catch((err) => app.log.error({ err }, 'import jobs left behind by stopped instances could not be checked'));
  });
  app.addHook('onClose', () => worker?.stop());
  app.addHook('onClose', () => runner.stop());
  app.addHook('onClose', () => mailWorker?.stop());
  // Stopped before the mail worker: a fan-out under way queues its mails first.
  app.addHook('onClose', () => notificationWorker?.stop());
  app.addHook('onClose', async () => erasures?.stop());
  app.addHook('onClose', async () => {
    await indexer?.stop();
    await keyUse.stop(db.kysely);
  });
  return app;
}
