import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { CSRF_HEADER, STAFF_COOKIE } from '../staff/cookie-auth.ts';

/** /openapi.json is generated from the route schemas; /docs renders it. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Parley API',
        version: '1.0.0',
        description:
          'Threaded comments for web pages. Errors are RFC 9457 problem+json with a stable `code`. ' +
          'Credentials: an API key (`Authorization: Bearer sk_...` or `X-API-Key`) or a session token ' +
          '(`Authorization: Bearer sess_...`); reads of threads are public. Staff sign in with ' +
          `\`POST /api/auth/login\` and are then known by the \`${STAFF_COOKIE}\` cookie under \`/api/\` only; ` +
          'every POST, PATCH and DELETE made with the cookie sends the `X-CSRF-Token` of `GET /api/auth/me`.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'API key (sk_...) or session token (sess_...)' },
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          staffCookie: { type: 'apiKey', in: 'cookie', name: STAFF_COOKIE, description: 'A staff sign-in (POST /api/auth/login); accepted under /api/ only, same origin only' },
          csrfToken: { type: 'apiKey', in: 'header', name: CSRF_HEADER, description: 'csrf_token of the sign-in or of GET /api/auth/me' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
}
