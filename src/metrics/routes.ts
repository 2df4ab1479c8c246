import type { FastifyInstance } from 'fastify';
import { hashSecret, sameSecret } from '../auth/secrets.ts';
import { AppError } from '../errors.ts';
import { parleyMetrics, type MetricSources } from './registry.ts';

export const METRICS_PATH = '/metrics';

/**
 * GET /metrics in Prometheus's text format, answered only to `Authorization: Bearer <token>`; with no
 * token configured the route does not exist (404), so metrics are never public by accident. Every
 * answered request is then counted and timed by its route pattern (the onResponse hook).
 */
export function registerMetrics(app: FastifyInstance, token: string, sources: MetricSources): void {
  const { registry, recordRequest } = parleyMetrics(sources);
  const expected = hashSecret(token);
  app.addHook('onResponse', (request, reply, done) => {
    recordRequest(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  app.get(METRICS_PATH, { schema: { hide: true } }, async (request, reply) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    // Hashed first, so the comparison takes the same time whatever the length sent.
    if (!match || !sameSecret(hashSecret(match[1]), expected)) {
      throw new AppError('unauthorized', 'GET /metrics needs "Authorization: Bearer <PARLEY_METRICS_TOKEN>"');
    }
    reply.header('cache-control', 'no-store').type(registry.contentType);
    return registry.metrics();
  });
}
