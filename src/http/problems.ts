import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseBusy } from '../db/dialect.ts';
import { AppError, toProblem, type ErrorCode, type FieldError, type ProblemDetails } from '../errors.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
/** When a client may try again after the database was too busy to answer (seconds). */
export const BUSY_RETRY_AFTER_SECONDS = 5;

export function sendProblem(reply: FastifyReply, code: ErrorCode, detail: string, errors?: FieldError[], details?: ProblemDetails) {
  const problem = toProblem(code, detail, errors, details);
  if (code === 'unauthorized') reply.header('WWW-Authenticate', 'Bearer');
  return reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(problem);
}

interface AjvIssue {
  instancePath: string;
  message?: string;
  keyword: string;
  params: Record<string, unknown>;
}

function fieldErrors(context: string | undefined, issues: AjvIssue[]): FieldError[] {
  return issues.map((issue) => {
    const missing = issue.keyword === 'required' ? `/${String(issue.params.missingProperty)}` : '';
    const allowed = Array.isArray(issue.params.allowedValues) ? `: ${issue.params.allowedValues.join(', ')}` : '';
    return { path: `${context ?? 'body'}${issue.instancePath}${missing}`, message: `${issue.message ?? 'is invalid'}${allowed}` };
  });
}

/** Fastify's own errors, by code, mapped onto the contract's error codes. */
const FRAMEWORK_ERRORS: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  // @fastify/csrf-protection: a staff write whose X-CSRF-Token is not its session's.
  FST_CSRF_INVALID_TOKEN: 'forbidden',
  FST_CSRF_MISSING_SECRET: 'forbidden',
};

/** Every error leaves as RFC 9457 problem+json; a 500 never carries internals. */
export function registerProblemHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (error instanceof AppError) {
      if (error.retryAfterSeconds !== undefined) reply.header('retry-after', error.retryAfterSeconds);
      return sendProblem(reply, error.code, error.message, error.errors, error.details);
    }
    if (error.validation) {
      const errors = fieldErrors(error.validationContext, error.validation as AjvIssue[]);
      return sendProblem(reply, 'validation_failed', errors.map((e) => `${e.path} ${e.message}`).join('; '), errors);
    }
    const mapped = error.code ? FRAMEWORK_ERRORS[error.code] : undefined;
    if (mapped) return sendProblem(reply, mapped, error.message);
    if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON') {
      return sendProblem(reply, 'invalid_json', 'The request body is not valid JSON');
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return sendProblem(reply, error.statusCode === 404 ? 'not_found' : 'validation_failed', error.message);
    }
    if (isDatabaseBusy(error)) {
      // Overload, not a bug: the request may well succeed later, so say when rather than 500.
      request.log.warn({ err: error }, 'database too busy to answer (statement time-out or lock wait); answered 503');
      reply.header('Retry-After', BUSY_RETRY_AFTER_SECONDS);
      return sendProblem(reply, 'service_unavailable', `The database is busy; retry in ${BUSY_RETRY_AFTER_SECONDS} s`);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(reply, 'internal', 'Something went wrong on our side; it has been logged');
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, 'not_found', `No route ${request.method} ${request.url.split('?')[0]}`),
  );
}

/**
 * Errors the router raises before any route or hook runs (Fastify's `frameworkErrors` option): a
 * path that is not valid percent-encoded UTF-8, or a path parameter longer than the router accepts.
 * Since no hook runs, the rate limit and the nosniff header are applied here: otherwise malformed
 * paths would be the one request a client could send without limit.
 */
export async function frameworkErrorProblem(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header('x-content-type-options', 'nosniff');
  try {
    await request.server.admitUnrouted(request, reply);
  } catch (refused) {
    if (refused instanceof AppError) return sendProblem(reply, refused.code, refused.message);
    request.log.error({ err: refused }, 'rate limit check failed; request let through');
  }
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return sendProblem(reply, 'validation_failed', 'A path parameter is longer than 200 characters', [{ path: 'params', message: 'is too long' }]);
  }
  return sendProblem(reply, 'malformed_request', 'The request path is not valid percent-encoded UTF-8');
}

const CLIENT_ERRORS: Record<string, [ErrorCode, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: ['request_timeout', 'The request was not received in time'],
  HPE_HEADER_OVERFLOW: ['headers_too_large', 'The request line and headers are over 16 KiB'],
};

/**
 * Requests Node's HTTP parser refuses (malformed, headers over maxHeaderSize, too slow) never reach
 * Fastify; they still get a problem+json answer before the socket is closed (`clientErrorHandler`).
 */
export function clientErrorProblem(error: Error & { code?: string }, socket: Socket & { _httpMessage?: { headersSent: boolean } }): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // As Node itself does: never write into a response that has already started on this socket.
  if (socket.writable && !socket._httpMessage?.headersSent) {
    const [code, detail] = CLIENT_ERRORS[error.code ?? ''] ?? ['malformed_request', 'The request is not valid HTTP/1.1'];
    const problem = toProblem(code, detail);
    const body = JSON.stringify(problem);
    socket.write(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
