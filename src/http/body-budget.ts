import type { FastifyRequest, onRequestAbortAsyncHookHandler, onResponseHookHandler, preParsingHookHandler } from 'fastify';
import { createByteBudget, type ByteBudget } from '../lib/byte-budget.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Gives back this request's share of its route's body budget (body-budget.ts); undefined when it holds none. */
    releaseBodyBudget?: () => void;
  }
}

/** Bodies below this pass at once: an ordinary request is not queued behind a 50 MB one. */
export const SMALL_BODY_BYTES = 1024 * 1024;

/**
 * Route hooks that read a large request body only once `memory` (a budget
 * shared with the other ways in, sending/send-memory.ts) has room for it, by
 * its Content-Length, until its answer is sent. Small bodies pass at once.
 * `memory` may be a number of bytes for a budget of the routes' own.
 */
export function createBodyBudget(memory: ByteBudget | number, maxBodyBytes: number) {
  const budget = typeof memory === 'number' ? createByteBudget(memory) : memory;

  // Callback style: every request of the route runs it, and nearly all pass at once, with no promise.
  const preParsing: preParsingHookHandler = (request, reply, payload, done) => {
    const declared = Number(request.headers['content-length']);
    // Chunked (no length): counted as the largest body the route takes.
    const bytes = Number.isFinite(declared) ? Math.min(declared, maxBodyBytes) : maxBodyBytes;
    if (bytes < SMALL_BODY_BYTES) return done(null, payload);
    // The response's `close` comes once, whatever happens: answered, or the connection gone (even while
    // waiting here, unread). A share that no answer gives back would hold the budget for ever.
    const closed = new Promise<void>((resolve) => reply.raw.once('close', resolve));
    budget.acquire(bytes, closed).then(
      (release) => {
        request.releaseBodyBudget = release;
        void closed.then(release);
        done(null, payload);
      },
      () => done(new Error('The client went away before its request body was read')),
    );
  };
  const release = async (request: FastifyRequest) => request.releaseBodyBudget?.();
  // Every answer of the route runs it: callback style, no promise per request.
  const releaseOnResponse: onResponseHookHandler = (request, _reply, done) => {
    request.releaseBodyBudget?.();
    done();
  };

  return {
    /** Route hooks: hold back a large body's reading, give its share back once answered or abandoned (whichever is heard first). */
    hooks: {
      preParsing,
      onResponse: releaseOnResponse,
      onRequestAbort: release as onRequestAbortAsyncHookHandler,
    },
    /** Bytes of bodies admitted now, and requests waiting (for tests). */
    state: () => budget.state(),
  };
}
