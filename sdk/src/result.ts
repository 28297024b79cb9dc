/**
 * What every call answers, as Resend's SDK does: the data, or an error, never
 * a thrown exception for something the API (or the network) said.
 */
export type Result<T, E = MailroomError> = { data: T; error: null } | { data: null; error: E };

/** Why a call failed, by kind; `network_error` when no HTTP answer came back at all. */
export type MailroomErrorName =
  | 'validation_error'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limit_exceeded'
  | 'client_error'
  | 'server_error'
  | 'service_unavailable'
  | 'invalid_response'
  | 'network_error';

export interface MailroomError {
  /** The HTTP status of the last answer; 0 when none came back (a network error or a timeout). */
  status: number;
  name: MailroomErrorName;
  /** The API's own sentence (`to must contain at most 50 recipients (got 51)`), or what went wrong on the way. */
  message: string;
  /** Seconds the server asked the client to wait (`Retry-After`), on 429 and 503 answers that carry it. */
  retryAfter?: number;
  /** Requests made for this call: 1, plus one per retry. */
  attempts: number;
}

const NAMES_BY_STATUS: Readonly<Record<number, MailroomErrorName>> = {
  400: 'validation_error',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limit_exceeded',
  503: 'service_unavailable',
};

export function errorNameFor(status: number): MailroomErrorName {
  return NAMES_BY_STATUS[status] ?? (status >= 500 ? 'server_error' : 'client_error');
}

export function succeeded<T>(data: T): { data: T; error: null } {
  return { data, error: null };
}

export function failed<E>(error: E): { data: null; error: E } {
  return { data: null, error };
}

/**
 * Thrown only where a `{data, error}` answer has no place to go: by the async
 * iterator of a list (`for await … of mailroom.logs.list()`), when fetching a
 * page fails after its retries. `error` is what the call would have answered.
 */
export class MailroomRequestError extends Error {
  constructor(readonly error: MailroomError) {
    super(error.message);
    this.name = 'MailroomRequestError';
  }
}
