/**
 * Typed errors thrown by domain code. `http/error-handler.ts` is the one place
 * that turns them into an HTTP status and the response envelope.
 */
export abstract class AppError extends Error {
  abstract readonly statusCode: number;
  /** Seconds after which trying again may succeed: sent as `Retry-After`. */
  readonly retryAfterSeconds?: number;
  /** What to do instead, when the message alone would not say it: sent beside `error` as `hint` (under /v1). */
  readonly hint?: string;
  /** The message is written for the API caller and is safe to show; a `cause` is for the log only. */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class ValidationError extends AppError {
  readonly statusCode = 400;
}

export class UnauthorizedError extends AppError {
  readonly statusCode = 401;
  constructor(message = 'Invalid or missing API key') {
    super(message);
  }
}

/** No key at all, as opposed to a wrong one: the same answer under /v1, told apart by Resend's dialect (compat/resend). */
export class MissingApiKeyError extends UnauthorizedError {}

/**
 * No x-api-key under /v1, but an Authorization header: most likely a key sent as Resend's API takes it
 * (`Authorization: Bearer`). SPEC.md §7 fixes the 401's message; the hint beside it says where the key goes.
 */
export class ApiKeyInAuthorizationError extends MissingApiKeyError {
  override readonly hint = '/v1 takes the API key in the x-api-key header; Authorization: Bearer is for the Resend-compatible API at /compat/resend';
}

/** Signed in, but not allowed: a role too low, a request from another origin, a CSRF token missing or wrong. */
export class ForbiddenError extends AppError {
  readonly statusCode = 403;
}

/** A sending_access key on a route other than sending (http/api-guard.ts). */
export class SendingOnlyKeyError extends ForbiddenError {
  constructor() {
    super('This API key can only send e-mail');
  }
}

export class NotFoundError extends AppError {
  readonly statusCode = 404;
}

/** A request URL longer than the API reads (http/request-limits.ts). */
export class UrlTooLongError extends AppError {
  readonly statusCode = 414;
}

export class ConflictError extends AppError {
  readonly statusCode = 409;
}

export class RateLimitError extends AppError {
  readonly statusCode = 429;
  constructor(override readonly retryAfterSeconds: number, message = 'Rate limit exceeded') {
    super(message);
  }
}

/**
 * The workspace's recipients per minute are used up (sending/recipient-limit.ts): the same 429 as a
 * request limit, but the answer's X-RateLimit-* headers describe this budget, in recipients.
 */
export class RecipientLimitError extends RateLimitError {
  constructor(readonly budget: { limit: number; remaining: number; resetAt: number }) {
    super(Math.max(1, budget.resetAt - Math.floor(Date.now() / 1000)));
  }
}

/** A dependency the request needs (Redis for rate limits, the store) did not answer: try again shortly. */
export class ServiceUnavailableError extends AppError {
  readonly statusCode = 503;
  constructor(override readonly retryAfterSeconds: number, options?: { cause?: unknown; message?: string }) {
    super(options?.message ?? 'Service temporarily unavailable', options);
  }
}

/** Seconds a client is told to wait while the store does not answer: the pool tries it again on the next request. */
export const RETRY_AFTER_STORE_DOWN_SECONDS = 5;
/** Seconds a client is told to wait while the store has no room: space comes back by an operator's hand, not in seconds. */
export const RETRY_AFTER_STORE_FULL_SECONDS = 60;

/**
 * The store cannot be reached or did not answer in time (db/store-failure.ts tells which errors mean that):
 * nothing is wrong with the request, and the same request may succeed once the store is back.
 */
export class StoreUnavailableError extends ServiceUnavailableError {
  constructor(options: { cause: unknown }) {
    super(RETRY_AFTER_STORE_DOWN_SECONDS, { ...options, message: 'Service temporarily unavailable: the database did not answer; try again in a few seconds' });
  }
}

/** The store's disk is full: the write was rolled back whole, and reads still work. */
export class StoreFullError extends ServiceUnavailableError {
  constructor(options: { cause: unknown }) {
    super(RETRY_AFTER_STORE_FULL_SECONDS, { ...options, message: 'Service temporarily unavailable: the database has no space left to write; try again later' });
  }
}
