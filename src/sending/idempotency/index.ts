export { createIdempotencyRepository, type IdempotencyRepository, type StoredResponse } from './idempotency-repository.js';
export {
  createIdempotencyService,
  DIFFERENT_REQUEST,
  IDEMPOTENCY_TTL_MS,
  IdempotencyInFlightError,
  IdempotencyKeyReusedError,
  InvalidIdempotencyKeyError,
  IN_FLIGHT_TIMEOUT_MS,
  MAX_KEY_LENGTH,
  STILL_IN_FLIGHT,
  type IdempotencyService,
} from './idempotency-service.js';
export { registerIdempotency, REPLAYED_HEADER } from './idempotency-hooks.js';
