import type { FastifyInstance } from 'fastify';
import { createApp } from './app.ts';
import type { Config } from './config.ts';
import { migrateToLatest } from './db/migrate.ts';
import { bootstrapDemoIfEmpty } from './sites/bootstrap.ts';
import { linkUrl } from './staff/links.ts';

/**
 * `parley serve`: listen (answering /healthz, and /readyz with 503 "migrating"), migrate, bootstrap a
 * demo site on an empty database, and be ready. On SIGTERM or SIGINT: fail /readyz while still
 * serving for PARLEY_SHUTDOWN_DELAY, then stop accepting, drain in-flight work, close the database
 * and exit 0.
 */
export async function serve(config: Config): Promise<FastifyInstance> {
  const app = await createApp(config);
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal, delay_ms: config.shutdownDelayMs }, 'draining and shutting down');
    app.readiness.drain();
    setTimeout(() => {
      app.close().then(
        () => process.exit(0),
        (error) => {
          app.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    }, config.shutdownDelayMs);
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  // Another instance may hold the migration lock: this one waits, listening and saying so.
  await migrateToLatest(app.db);
  const demo = await bootstrapDemoIfEmpty(app.db);
  app.readiness.ready();
  app.log.info('database migrated; ready');
  if (demo) {
    const base = `http://${config.host}:${(app.server.address() as { port: number }).port}`;
    process.stdout.write(
      `\nParley created a demo site on this empty database. Its admin key is shown only now:\n\n` +
        `  export PARLEY_URL=${base}\n  export SITE_ID=${demo.site_id}\n  export PARLEY_KEY=${demo.api_key}\n\n` +
        `The demo account's first owner signs up once through this link (7 days; or run npx parley admin create --email you@example.com):\n\n` +
        `  export PARLEY_SETUP_LINK=${linkUrl(base, 'setup', demo.setup_token)}\n\n` +
        `API reference: ${base}/docs\n\n`,
    );
  }
  return app;
}
