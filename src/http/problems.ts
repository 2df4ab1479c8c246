import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { AppError, toProblem, type ErrorCode, type FieldError } from '../errors.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export function sendProblem(reply: FastifyReply, code: ErrorCode, detail: string, errors?: FieldError[]) {
  const problem = toProblem(code, detail, errors);
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
};

/** Every error leaves as RFC 9457 problem+json; a 500 never carries internals. */
export function registerProblemHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (error instanceof AppError) return sendProblem(reply, error.code, error.message, error.errors);
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
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(reply, 'internal', 'Something went wrong on our side; it has been logged');
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, 'not_found', `No route ${request.method} ${request.url.split('?')[0]}`),
  );
}
