// The benchmark's baseline: a bare Fastify 5 process that answers each case's URL with the exact
// bytes Parley returned for it. Plain JavaScript, no loader, nothing but the framework's own work.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const [specFile, port] = process.argv.slice(2);
const responses = JSON.parse(readFileSync(specFile, 'utf8'));
const app = Fastify({ logger: false });
const routes = new Map();
for (const response of responses) {
  // Bytes, as Parley's response cache holds them: encoding a string on every send is not the limit.
  response.bytes = Buffer.from(response.body);
  const key = `${response.method} ${response.route}`;
  if (!routes.has(key)) routes.set(key, new Map());
  routes.get(key).set(response.url, response);
}
for (const [key, byUrl] of routes) {
  const [method, route] = key.split(' ');
  const fallback = byUrl.values().next().value;
  app.route({
    method,
    url: route,
    handler: (request, reply) => {
      const canned = byUrl.get(request.url) ?? fallback;
      reply.code(canned.status).header('content-type', canned.contentType).send(canned.bytes);
    },
  });
}
app.get('/healthz', () => ({ status: 'ok' }));
await app.listen({ port: Number(port), host: '127.0.0.1' });
