import type { FastifyReply, FastifyRequest, onRequestAbortAsyncHookHandler, onResponseAsyncHookHandler, preParsingAsyncHookHandler } from 'fastify';

/** Bodies below this are never held back: an ordinary send is not queued behind a 50 MB one. */
const SMALL_BODY_BYTES = 1024 * 1024;

declare module 'fastify' {
  interface FastifyRequest {
    /** Gives back this request's share of its route's body budget (body-budget.ts); undefined when it holds none. */
    releaseBodyBudget?: () => void;
  }
}

/**
 * Bounds the memory that large request bodies of some routes take at once.
 * A 40 MB send is ~53 MB of JSON read, about as much again as a string, the
 * parsed base64 and the decoded bytes: ten arriving together would hold well
 * over a gigabyte before the first is written. Here a large body is read only
 * once the bodies in flight (by Content-Length, until their answer is sent)
 * leave room for it in `budgetBytes`; a body alone always gets in, and
 * waiting requests get in first come, first served. Those waiting are not
 * read: TCP holds their senders back. Small bodies pass at once.
 */
export function createBodyBudget(budgetBytes: number, maxBodyBytes: number) {
  let held = 0;
  let holders = 0;
  const waiting: { bytes: number; go(): void }[] = [];

  const admit = () => {
    while (waiting.length > 0 && (holders === 0 || held + waiting[0]!.bytes <= budgetBytes)) {
      const next = waiting.shift()!;
      held += next.bytes;
      holders++;
      next.go();
    }
  };

  const preParsing: preParsingAsyncHookHandler = async (request, reply, payload) => {
    const declared = Number(request.headers['content-length']);
    // Chunked (no length): counted as the largest body the route takes.
    const bytes = Number.isFinite(declared) ? Math.min(declared, maxBodyBytes) : maxBodyBytes;
    if (bytes < SMALL_BODY_BYTES) return payload;
    // The response's `close` comes once, whatever happens: answered, or the connection gone (even while
    // waiting here, unread). A share that no answer gives back would hold the budget for ever.
    const closed = new Promise<void>((resolve) => reply.raw.once('close', resolve));
    await new Promise<void>((go, fail) => {
      const entry = { bytes, go };
      waiting.push(entry);
      admit();
      void closed.then(() => {
        const at = waiting.indexOf(entry);
        if (at < 0) return;
        waiting.splice(at, 1);
        fail(new Error('The client went away before its request body was read'));
      });
    });
    let released = false;
    request.releaseBodyBudget = () => {
      if (released) return;
      released = true;
      held -= bytes;
      holders--;
      admit();
    };
    void closed.then(request.releaseBodyBudget);
    return payload;
  };
  const release = async (request: FastifyRequest, _reply?: FastifyReply) => request.releaseBodyBudget?.();

  return {
    /** Route hooks: hold back a large body's reading, give its share back once answered or abandoned (whichever is heard first). */
    hooks: {
      preParsing,
      onResponse: release as onResponseAsyncHookHandler,
      onRequestAbort: release as onRequestAbortAsyncHookHandler,
    },
    /** Bytes of bodies admitted now, and requests waiting (for tests). */
    state: () => ({ held, holders, waiting: waiting.length }),
  };
}
