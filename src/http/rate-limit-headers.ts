import type { FastifyReply } from 'fastify';
import type { RateLimitDecision } from '../lib/rate-limiter.js';
import type { ApiDialect } from './api-dialect.js';

/**
 * Tells the client a budget's state (SPEC.md §8.1): `X-RateLimit-*`, and its dialect's headers beside them
 * (compat/resend). Written by the API guard for the request's own budget, and by the error handler for a
 * refusal by another (the workspace's recipients, errors.ts RecipientLimitError), which replaces them.
 */
export function reportBudget(reply: FastifyReply, decision: Pick<RateLimitDecision, 'limit' | 'remaining' | 'resetAt'>, dialect: ApiDialect | undefined, nowSeconds: number): void {
  reply.header('X-RateLimit-Limit', decision.limit);
  reply.header('X-RateLimit-Remaining', decision.remaining);
  reply.header('X-RateLimit-Reset', decision.resetAt);
  if (dialect) reply.headers(dialect.rateLimitHeaders(decision, nowSeconds));
}
