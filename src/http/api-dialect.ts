import type { FastifyRequest } from 'fastify';
import type { RateLimitDecision } from '../lib/rate-limiter.js';

/** A failure as the error handler decided it: Mailroom's status and the sentence safe to show. */
export interface ApiFailure {
  status: number;
  message: string;
  /** What was thrown, so a dialect can tell errors of one status apart (a missing key from a wrong one). */
  error: unknown;
}

/**
 * Another API's conventions for routes that speak it (compat/resend): where
 * the API key comes from, which rate-limit headers go beside Mailroom's, and
 * how a failure is answered. A route opts in with `config: { dialect }`; the
 * API guard and the one error handler consult it, so keys, limits, scopes and
 * the mapping of errors to Mailroom's statuses stay in one place each. Routes
 * without one speak /v1: `x-api-key` and the envelope.
 */
export interface ApiDialect {
  /** The key the request presents, or undefined when it presents none. */
  apiKey(request: FastifyRequest): string | undefined;
  /** Headers this dialect's clients read the budget from, beside `X-RateLimit-*`. */
  rateLimitHeaders(decision: Pick<RateLimitDecision, 'limit' | 'remaining' | 'resetAt'>, nowSeconds: number): Record<string, number>;
  /** The status and body answering a failure. */
  failure(failure: ApiFailure): { status: number; body: unknown };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The conventions the route speaks; /v1's when unset. */
    dialect?: ApiDialect;
  }
}
