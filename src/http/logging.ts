import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyRequest } from 'fastify';

/** Query parameters that carry a credential (the widget demo page takes `?session_token=`). */
const SECRET_PARAMS = new Set(['session_token', 'api_key', 'token']);

/**
 * A parameter name as the query parser reads it (`+` is a space, `%XX` a byte), so `session%5Ftoken`
 * is `session_token`. Byte by byte, so a malformed escape is left as it is instead of throwing; the
 * names looked for are ASCII, which this decodes exactly.
 */
function decodedName(name: string): string {
  if (!name.includes('%') && !name.includes('+')) return name;
  return name.replace(/\+/g, ' ').replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The URL with the value of every credential parameter replaced, however its name was encoded. */
function redactedUrl(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const pairs = url.slice(start + 1).split('&');
  let redacted = false;
  for (let i = 0; i < pairs.length; i += 1) {
    const equals = pairs[i].indexOf('=');
    if (equals < 0) continue;
    const name = pairs[i].slice(0, equals);
    if (!SECRET_PARAMS.has(decodedName(name).toLowerCase())) continue;
    pairs[i] = `${name}=[redacted]`;
    redacted = true;
  }
  return redacted ? `${url.slice(0, start + 1)}${pairs.join('&')}` : url;
}

/** The request as logged: Fastify's usual fields, with credentials in the query string masked. */
export function logRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactedUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** A proxy's request id is taken as it is only when it cannot break a log line or a header. */
const USABLE_ID = /^[\w.:@/+=-]{1,128}$/;

/**
 * Each request's id (on its log lines and in `X-Request-Id`): the one the proxy sent in
 * `X-Request-Id` when TRUST_PROXY trusts the peer, so one id follows the request through both logs;
 * otherwise a new random one (unique across instances, unlike a counter).
 */
export function requestIds(trustProxy: string[]): (request: IncomingMessage) => string {
  const trusted = trustProxy.length > 0 ? proxyAddr.compile(trustProxy) : null;
  return (request) => {
    const sent = request.headers['x-request-id'];
    if (trusted && typeof sent === 'string' && USABLE_ID.test(sent) && trusted(request.socket.remoteAddress ?? '', 0)) return sent;
    return randomUUID();
  };
}
