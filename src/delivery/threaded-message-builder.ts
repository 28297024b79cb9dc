import type { Worker } from 'node:worker_threads';
import type { MessageAttachmentsTable, MessagesTable } from '../db/schema.js';
import { ownedBytes } from '../sending/index.js';
import { startModuleThread } from '../lib/module-worker.js';
import type { BuildReply, BuildRequest } from './message-builder-thread.js';
import type { MessageTracking } from '../tracking/index.js';
import type { BuiltMessage, Envelope, SigningDomain } from './message-builder.js';

/** Builds one message: composes, signs, addresses it (message-builder.ts); with `tracking`, a copy per envelope. */
export type MessageBuilder = (
  message: MessagesTable,
  domain: SigningDomain,
  envelopes: Envelope[],
  attachments?: MessageAttachmentsTable[],
  tracking?: MessageTracking,
) => Promise<BuiltMessage>;

/**
 * The builder on the calling thread. Loaded at its first build: Nodemailer and html-to-text
 * otherwise sit in the memory of every process whose messages a builder thread makes.
 */
export const buildInThread: MessageBuilder = async (message, domain, envelopes, attachments = [], tracking) => {
  const { buildMessage } = await import('./message-builder.js');
  return buildMessage(message, domain, envelopes, attachments, new Date(), tracking);
};

/** Structured clone turns a Buffer into a plain Uint8Array: a Buffer again, without copying. */
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** The builder thread died with the message: nothing is wrong with the message, so the attempt may be made again. */
export class BuilderUnavailableError extends Error {
  override name = 'BuilderUnavailableError';
}

const THREAD_ENTRY = new URL('./message-builder-thread.js', import.meta.url);
/** Longest close() waits for the builder thread to end. */
const BUILDER_CLOSE_WAIT_MS = 2_000;

/**
 * Builds messages on a thread of their own. Composing MIME and the RSA
 * signature are the worker's heaviest CPU work; on the worker's thread they
 * would compete with claiming, recording and (inside `serve`) every HTTP
 * request, while the machine's other cores sit idle. Should the thread die,
 * the builds it held fail with BuilderUnavailableError (retried later) and
 * the next build starts a new thread.
 */
export function createThreadedMessageBuilder(): MessageBuilder & { close(): Promise<void> } {
  let thread: Worker | undefined;
  let nextId = 0;
  const pending = new Map<number, { resolve(built: BuiltMessage): void; reject(error: Error): void }>();

  function failPending(reason: string): void {
    for (const [id, waiter] of pending) {
      pending.delete(id);
      waiter.reject(new BuilderUnavailableError(reason));
    }
  }

  function start(): Worker {
    if (thread) return thread;
    const started = startModuleThread(THREAD_ENTRY, null);
    started.unref(); // only builds in flight keep the process alive
    const lost = (reason: string) => {
      if (thread !== started) return;
      thread = undefined;
      failPending(reason);
    };
    started.on('message', (reply: BuildReply) => {
      const waiter = pending.get(reply.id);
      if (!waiter) return;
      pending.delete(reply.id);
      if (pending.size === 0) started.unref();
      if (reply.error !== undefined) return waiter.reject(new Error(reply.error));
      const raw = asBuffer(reply.built.raw);
      const envelopes = reply.built.envelopes.map((e) => (e.raw ? { ...e, raw: asBuffer(e.raw) } : e));
      waiter.resolve({ ...reply.built, envelopes, raw });
    });
    started.on('error', (error) => lost(`The message builder thread failed: ${error.message}`));
    started.on('exit', (code) => lost(`The message builder thread exited (code ${code})`));
    thread = started;
    return started;
  }

  const build: MessageBuilder = (message, domain, envelopes, attachments = [], tracking) =>
    new Promise<BuiltMessage>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      const target = start();
      target.ref();
      // The attachment bytes move to the thread rather than being copied: the caller drops them after the build.
      const moved = attachments.map((a) => ({ ...a, content: ownedBytes(a.content) }));
      const request: BuildRequest = { id, message, domain, envelopes, attachments: moved, date: new Date().toISOString(), ...(tracking ? { tracking } : {}) };
      target.postMessage(request, moved.map((a) => a.content.buffer as ArrayBuffer));
    });

  return Object.assign(build, {
    /** Ends the thread; builds still pending fail as unavailable. A later build starts a new thread. */
    async close() {
      const stopping = thread;
      thread = undefined;
      failPending('The message builder was closed');
      if (!stopping) return;
      // A thread still starting (registering tsx's loader) may not answer terminate() for a long time, if
      // ever: unreferenced, it cannot keep the process alive, and close() does not wait on it past a bound.
      stopping.unref();
      await Promise.race([stopping.terminate(), new Promise((resolve) => setTimeout(resolve, BUILDER_CLOSE_WAIT_MS).unref())]);
    },
  });
}
