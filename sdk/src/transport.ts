import { backoffDelayMs, DEFAULT_MAX_RETRIES, isRetryable, parseRetryAfter } from './backoff.js';
import { errorNameFor, failed, succeeded, type MailroomError, type Result } from './result.js';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';
const DEFAULT_TIMEOUT_MS = 60_000;

export interface MailroomOptions {
  /** Where Mailroom answers, without `/v1`; default `http://127.0.0.1:3000` (a fresh `npm start`). */
  baseUrl?: string;
  /** Retries after a 429, a 5xx or a network error (SPEC.md §8.1: 3). 0 turns retrying off. */
  maxRetries?: number;
  /** How long one request may take before it counts as a network error (and is retried); default 60 s. */
  timeoutMs?: number;
  /** Headers sent with every request, besides the key. */
  headers?: Record<string, string>;
  /** The fetch to use; default the runtime's global `fetch`. */
  fetch?: typeof fetch;
  /** Waits `ms` between attempts; default a timer. Tests give a clock of their own. */
  sleep?: (ms: number) => Promise<void>;
  /** A number in [0, 1) for the jitter; default Math.random. */
  random?: () => number;
  /** Milliseconds since the epoch, to read a `Retry-After` given as a date; default Date.now. */
  now?: () => number;
}

export type QueryValue = string | number | boolean | null | undefined;

export interface RequestSpec {
  method: 'GET' | 'POST' | 'DELETE';
  /** Under the base URL, e.g. `/v1/domains/dom_…/verify`; path parameters already encoded. */
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A successful answer: the envelope's `data`, and the headers for what the envelope does not carry (X-Total-Count). */
export interface Answer<T> {
  data: T;
  status: number;
  headers: Headers;
}

type Attempt<T> = { ok: true; answer: Answer<T> } | { ok: false; error: Omit<MailroomError, 'attempts'>; retryable: boolean };

/**
 * One Mailroom call: the request, and SPEC.md §8.1's retries when the answer
 * is a 429, a 5xx or no answer at all. Never throws for what the API or the
 * network did; every failure comes back as `error`.
 */
export class Transport {
  readonly baseUrl: string;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly fetch: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly now: () => number;

  constructor(
    private readonly apiKey: string,
    private readonly options: MailroomOptions = {},
  ) {
    this.baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    if (!Number.isInteger(this.maxRetries) || this.maxRetries < 0) throw new TypeError('maxRetries must be a whole number, 0 or more');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // Bound lazily: a global fetch installed after construction (a polyfill) is still found.
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
  }

  async request<T>(spec: RequestSpec): Promise<Result<Answer<T>>> {
    for (let attempts = 1; ; attempts++) {
      const attempt = await this.attempt<T>(spec);
      if (attempt.ok) return succeeded(attempt.answer);
      if (!attempt.retryable || attempts > this.maxRetries) return failed({ ...attempt.error, attempts });
      await this.sleep(backoffDelayMs(attempts, this.random(), attempt.error.retryAfter));
    }
  }

  /** `request`, for the envelope's `data` alone. */
  async call<T>(spec: RequestSpec): Promise<Result<T>> {
    const result = await this.request<T>(spec);
    return result.error ? result : succeeded(result.data.data);
  }

  private async attempt<T>(spec: RequestSpec): Promise<Attempt<T>> {
    let response: Response;
    let text: string;
    try {
      response = await this.fetch(this.url(spec), {
        method: spec.method,
        headers: this.headers(spec),
        ...(spec.body !== undefined ? { body: JSON.stringify(spec.body) } : {}),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await response.text();
    } catch (cause) {
      const reason = cause instanceof Error && cause.name === 'TimeoutError' ? `no answer within ${this.timeoutMs} ms` : describe(cause);
      return { ok: false, retryable: true, error: { status: 0, name: 'network_error', message: `Could not reach Mailroom at ${this.baseUrl}: ${reason}` } };
    }
    return this.read<T>(response, text, spec.headers?.['idempotency-key'] !== undefined);
  }

  private read<T>(response: Response, text: string, idempotent: boolean): Attempt<T> {
    const { status } = response;
    const envelope = parseEnvelope(text);
    if (status >= 200 && status < 300) {
      if (envelope?.success === true && 'data' in envelope) return { ok: true, answer: { data: envelope.data as T, status, headers: response.headers } };
      return { ok: false, retryable: false, error: { status, name: 'invalid_response', message: `Mailroom answered ${status} without a success envelope` } };
    }
    const retryAfter = parseRetryAfter(response.headers.get('retry-after'), this.now());
    const message = typeof envelope?.error === 'string' ? envelope.error : `Mailroom answered HTTP ${status}`;
    return {
      ok: false,
      retryable: isRetryable(status, retryAfter, idempotent),
      error: { status, name: errorNameFor(status), message, ...(retryAfter !== undefined ? { retryAfter } : {}) },
    };
  }

  private url(spec: RequestSpec): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined && value !== null) search.append(name, String(value));
    }
    const query = search.toString();
    return `${this.baseUrl}${spec.path}${query ? `?${query}` : ''}`;
  }

  private headers(spec: RequestSpec): Record<string, string> {
    return {
      accept: 'application/json',
      ...this.options.headers,
      ...(spec.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...spec.headers,
      'x-api-key': this.apiKey,
    };
  }
}

interface Envelope {
  success?: unknown;
  data?: unknown;
  error?: unknown;
}

function parseEnvelope(text: string): Envelope | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Envelope) : null;
  } catch {
    return null;
  }
}

/** A network failure's reason, with the cause Node's fetch hides behind "fetch failed" (ECONNREFUSED, …). */
function describe(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const inner = (cause as { cause?: unknown }).cause;
  if (inner instanceof Error && inner.message) return `${cause.message} (${inner.message})`;
  return cause.message;
}

/** `/v1/domains/{id}` with `id` encoded: an id never escapes its path segment. */
export function pathOf(strings: TemplateStringsArray, ...params: string[]): string {
  return strings.reduce((path, part, index) => path + part + (index < params.length ? encodeURIComponent(params[index]!) : ''), '');
}
