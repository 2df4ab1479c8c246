import type { FastifyRequest } from 'fastify';

/** Query parameters that carry a credential (the widget demo page takes `?session_token=`). */
const SECRET_PARAMS = /([?&](?:session_token|api_key|token)=)[^&#]*/gi;

/** The request as logged: Fastify's usual fields, with credentials in the query string masked. */
export function logRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: request.url.replace(SECRET_PARAMS, '$1[redacted]'),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
