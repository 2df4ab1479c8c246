/** The stable error codes of the contract and the HTTP status each one answers with. */
export const ERROR_STATUS = {
  invalid_json: 400,
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  plan_required: 403,
  banned: 403,
  edit_window_closed: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  malformed_request: 400,
  request_timeout: 408,
  headers_too_large: 431,
  internal: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

const TITLES: Record<ErrorCode, string> = {
  invalid_json: 'Malformed JSON',
  validation_failed: 'Validation failed',
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  plan_required: 'Plan upgrade required',
  banned: 'Banned',
  edit_window_closed: 'Edit window closed',
  not_found: 'Not found',
  conflict: 'Conflict',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  rate_limited: 'Too many requests',
  malformed_request: 'Malformed request',
  request_timeout: 'Request timeout',
  headers_too_large: 'Request header fields too large',
  internal: 'Internal server error',
  service_unavailable: 'Service unavailable',
};

export interface FieldError {
  path: string;
  message: string;
}

/** What a problem may say beyond the standard fields: why a token was refused, and the server's clock. */
export interface ProblemDetails {
  reason?: string;
  server_time?: string;
}

export class AppError extends Error {
  readonly status: number;
  /** A 429 counted inside a service: the seconds its Retry-After says. */
  retryAfterSeconds?: number;
  constructor(
    readonly code: ErrorCode,
    detail: string,
    readonly errors?: FieldError[],
    readonly details?: ProblemDetails,
  ) {
    super(detail);
    this.status = ERROR_STATUS[code];
  }
}

/** Past a limit a service counts itself (not a request limit), answered with Retry-After. */
export function rateLimited(detail: string, retryAfterSeconds: number): AppError {
  return Object.assign(new AppError('rate_limited', detail), { retryAfterSeconds });
}

/** A rule broken by well-formed input, reported against the field that broke it. */
export function invalid(path: string, message: string): AppError {
  return new AppError('validation_failed', message, [{ path, message }]);
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  errors?: FieldError[];
  reason?: string;
  server_time?: string;
}

export function toProblem(code: ErrorCode, detail: string, errors?: FieldError[], details?: ProblemDetails): Problem {
  return {
    type: `https://parley.dev/problems/${code.replace(/_/g, '-')}`,
    title: TITLES[code],
    status: ERROR_STATUS[code],
    detail,
    code,
    ...(errors ? { errors } : {}),
    ...details,
  };
}
