import type { FastifyRequest } from 'fastify';
import { AppError, MissingApiKeyError, SendingOnlyKeyError, UnauthorizedError } from '../../lib/errors.js';
import type { ApiDialect, ApiFailure } from '../../http/api-dialect.js';
import { IdempotencyInFlightError, IdempotencyKeyReusedError, InvalidIdempotencyKeyError } from '../../sending/index.js';

/** Resend's error body: what its SDKs hand back as `error`. */
export interface ResendError {
  statusCode: number;
  name: string;
  message: string;
}

/** An attachment given by `path` (a URL for Resend to fetch): Mailroom fetches nothing, so it is refused as Resend refuses a bad attachment. */
export class UnsupportedAttachmentError extends AppError {
  readonly statusCode = 422;
}

/**
 * Resend's names and statuses for Mailroom's failures, after its error
 * reference (resend.com/docs/api-reference/errors). The first match wins:
 * specific errors, then Mailroom's status.
 */
const BY_ERROR: [new (...args: never[]) => Error, number, string][] = [
  [InvalidIdempotencyKeyError, 400, 'invalid_idempotency_key'],
  [IdempotencyKeyReusedError, 409, 'invalid_idempotent_request'],
  [IdempotencyInFlightError, 409, 'concurrent_idempotent_requests'],
  [MissingApiKeyError, 401, 'missing_api_key'],
  [UnauthorizedError, 403, 'invalid_api_key'],
  [SendingOnlyKeyError, 401, 'restricted_api_key'],
  [UnsupportedAttachmentError, 422, 'invalid_attachment'],
];

/** Mailroom's status → Resend's, for everything else. Resend answers a field it refuses with 422. */
const BY_STATUS: Record<number, [number, string]> = {
  400: [422, 'validation_error'],
  403: [403, 'validation_error'],
  404: [404, 'not_found'],
  405: [405, 'method_not_allowed'],
  409: [409, 'validation_error'],
  413: [413, 'validation_error'],
  415: [415, 'validation_error'],
  429: [429, 'rate_limit_exceeded'],
};

export function resendFailure({ status, message, error }: ApiFailure): { status: number; body: ResendError } {
  const specific = BY_ERROR.find(([type]) => error instanceof type);
  const [statusCode, name] = specific ? [specific[1], specific[2]] : (BY_STATUS[status] ?? (status >= 500 ? [status, status === 500 ? 'internal_server_error' : 'application_error'] : [status, 'validation_error']));
  return { status: statusCode, body: { statusCode, name, message } };
}

/** `Authorization: Bearer <key>`, the scheme compared case-insensitively; any other scheme presents no key. */
function bearerKey(request: FastifyRequest): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return match?.[1];
}

/** The routes under /compat/resend: Resend's key header, rate-limit headers and error bodies. */
export const resendDialect: ApiDialect = {
  apiKey: bearerKey,
  // Resend's IETF-draft headers: `ratelimit-reset` counts seconds from now, not a Unix time.
  rateLimitHeaders: (decision, nowSeconds) => ({
    'ratelimit-limit': decision.limit,
    'ratelimit-remaining': decision.remaining,
    'ratelimit-reset': Math.max(0, decision.resetAt - nowSeconds),
  }),
  failure: resendFailure,
};
