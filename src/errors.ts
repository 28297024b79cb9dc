/**
 * Typed errors thrown by domain code. `http/error-handler.ts` is the one place
 * that turns them into an HTTP status and the response envelope.
 */
export abstract class AppError extends Error {
  abstract readonly statusCode: number;
  /** The message is written for the API caller and is safe to show. */
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends AppError {
  readonly statusCode = 400;
}

export class UnauthorizedError extends AppError {
  readonly statusCode = 401;
  constructor() {
    super('Invalid or missing API key');
  }
}

export class NotFoundError extends AppError {
  readonly statusCode = 404;
}

export class ConflictError extends AppError {
  readonly statusCode = 409;
}

export class RateLimitError extends AppError {
  readonly statusCode = 429;
  constructor(readonly retryAfterSeconds: number) {
    super('Rate limit exceeded');
  }
}
