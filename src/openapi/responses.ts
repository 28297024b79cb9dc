import { Type, type TSchema } from 'typebox';
import { URL_TOO_LONG } from '../http/request-limits.js';

/**
 * The pieces every /v1 operation's `response` schema is made of: the
 * envelope (SPEC.md §1), the error body, and the headers the API guard,
 * the error handler and the idempotency hooks write. The schemas document
 * the answers and let the test suite check every answer against them; they
 * never shape an answer (see the serializer in openapi/register.ts).
 */

/** Marks a documented response header as always present; openapi/register.ts turns it into the header's `required`. */
export const ALWAYS_PRESENT = Symbol('always present');

function header(description: string, schema: TSchema, alwaysPresent: boolean): TSchema {
  return { ...schema, description, ...(alwaysPresent ? { [ALWAYS_PRESENT]: true } : {}) } as TSchema;
}

const rateLimitHeaders = (alwaysPresent: boolean) => ({
  'X-RateLimit-Limit': header('Requests allowed in the current one-minute window (SPEC.md §8.1); on a 429 of the workspace\'s recipients per minute, the recipients allowed.', Type.Integer(), alwaysPresent),
  'X-RateLimit-Remaining': header('Requests left in the current window (on a 429 of the recipients per minute, recipients).', Type.Integer(), alwaysPresent),
  'X-RateLimit-Reset': header('Unix time (seconds) at which the window ends.', Type.Integer(), alwaysPresent),
});
export const retryAfter = (alwaysPresent: boolean) => ({
  'Retry-After': header('Seconds to wait before trying again.', Type.Integer(), alwaysPresent),
});
const IDEMPOTENT_REPLAYED = {
  'Idempotent-Replayed': header('`true` when this is the stored answer to an earlier request with the same Idempotency-Key.', Type.String({ enum: ['true'] }), false),
};
/** On the lists that are paged: the number of entries matching the filter, over all pages. */
export const TOTAL_COUNT = { 'X-Total-Count': header('Entries matching the filter, over all pages.', Type.Integer(), true) };

/** SPEC.md §1: `{success: false, error}`, the error one sentence that names the offending field where there is one; a `hint` beside it on a few. */
export const ErrorEnvelope = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.String({ description: 'A human-readable sentence saying what went wrong.' }),
    hint: Type.Optional(Type.String({ description: 'On a few errors, what to do instead: on the 401 of a request with an Authorization header and no x-api-key, where /v1 takes the key.' })),
  },
  { additionalProperties: false },
);

/** SPEC.md §1: `{success: true, data}`. */
export function Ok<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), data }, { additionalProperties: false });
}

/** What each error status means on this API (DESIGN.md §2, docs/api.md "Errors"). */
const ERROR_MEANINGS = {
  400: 'The request is not valid: the sentence names the field, query parameter or header.',
  401: 'The API key is missing or invalid: "Invalid or missing API key".',
  403: "The key's scope does not allow this: a sending_access key on another route, or a send from a domain the key may not send from.",
  404: 'No such resource in this workspace.',
  409: 'The request conflicts with the current state of the resource.',
  413: 'The request body is too large.',
  414: `${URL_TOO_LONG}.`,
  415: 'The request body is not JSON.',
  429: 'The rate limit of the key (or, without a valid key, of the client address) is exceeded: "Rate limit exceeded".',
  500: 'An unexpected failure; the message says nothing more ("Internal server error").',
  503: 'A dependency did not answer: Redis, for the rate limits ("Service temporarily unavailable"), or the database (the sentence says so, and whether it is out of space). Try again after `Retry-After` seconds.',
} as const;

export type ErrorStatus = keyof typeof ERROR_MEANINGS;

/** Statuses every route behind the API guard can answer: a query parameter it does not know, the key, its scope, the URL's length, its budget, a failure. */
const GUARDED_ERRORS: ErrorStatus[] = [400, 401, 403, 414, 429, 500, 503];
/** Further statuses of a route that reads a request body (any POST or DELETE: Fastify reads a body sent with them). */
export const BODY_ERRORS: ErrorStatus[] = [413, 415];

interface ResponseOptions {
  /** Error statuses beyond those of every guarded route. */
  errors?: ErrorStatus[];
  /** Headers of the success answers beyond the rate-limit ones. */
  successHeaders?: Record<string, TSchema>;
  /** The route honours Idempotency-Key: answers may be replays, and a 409 of a key still in flight carries Retry-After. */
  idempotent?: boolean;
}

/**
 * The `response` schema of a route behind the API guard: each success status
 * with its data in the envelope, every error status it can answer with the
 * error envelope, and the headers each carries.
 */
export function apiResponses(success: Record<number, TSchema>, options: ResponseOptions = {}): Record<number, TSchema> {
  const replayed = options.idempotent ? IDEMPOTENT_REPLAYED : {};
  const responses: Record<number, TSchema> = {};
  for (const [status, data] of Object.entries(success)) {
    responses[Number(status)] = Type.Object(Ok(data).properties, {
      additionalProperties: false,
      description: 'Success.',
      headers: { ...rateLimitHeaders(true), ...options.successHeaders, ...replayed },
    });
  }
  const statuses = [...new Set([...GUARDED_ERRORS, ...(options.errors ?? [])])].sort((a, b) => a - b);
  for (const status of statuses) {
    const headers = {
      // A 5xx can come before the guard counted the request (the store or Redis did not answer).
      ...rateLimitHeaders(status < 500),
      ...(status === 429 || status === 503 ? retryAfter(true) : {}),
      ...(status === 409 && options.idempotent ? retryAfter(false) : {}),
      ...(status < 500 ? replayed : {}),
    };
    responses[status] = Type.Object(ErrorEnvelope.properties, { additionalProperties: false, description: ERROR_MEANINGS[status], headers });
  }
  // Loosely typed on purpose: some routes send JSON text the store wrote (okJson), which a typed reply would refuse.
  // The test suite checks every answer against these schemas instead (test/helpers/openapi-drift.ts).
  return responses;
}

/** An answer to a deletion: the id (or address) of what is gone. */
export function Deleted<K extends string>(key: K) {
  return Type.Object({ [key]: Type.String(), deleted: Type.Literal(true) } as { [P in K]: ReturnType<typeof Type.String> } & { deleted: ReturnType<typeof Type.Literal<true>> }, {
    additionalProperties: false,
  });
}

/** A string or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** ISO 8601 UTC timestamps, as every resource carries them. */
export const Timestamp = Type.String({ description: 'ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z' });

/** `{name: value}`: a send's tags. */
export const Tags = Type.Object({}, { additionalProperties: Type.String(), description: "The send's tags as one object, `{}` when none." });
