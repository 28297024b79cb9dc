import type { Worker } from 'node:worker_threads';
import { startModuleThread } from '../lib/module-worker.js';
import type { ParsedReport } from './parse-report.js';
import type { ParseReply, ParseRequest } from './report-parser-thread.js';

/** A report read, and when (epoch milliseconds) and for how long its parse ran. */
export interface TimedReport {
  report: ParsedReport;
  startedAt: number;
  ms: number;
}

/** Reads a report from the first bytes of a message (read-limits.ts). */
export type ReportParse = (head: Buffer) => Promise<TimedReport>;

/** The parser thread failed, ended, or overran its deadline, with the report: the sender is told to try again. */
export class ParserUnavailableError extends Error {
  override name = 'ParserUnavailableError';
}

const THREAD_ENTRY = new URL('./report-parser-thread.js', import.meta.url);
/** Far beyond any parse of REPORT_READ_BYTES (milliseconds): past it the thread is ended and started again. */
export const PARSE_DEADLINE_MS = 30_000;
/** The parser thread's heap: mailparser and a few reports of REPORT_READ_BYTES need a fraction of it. */
const THREAD_HEAP_MB = 128;
const CLOSE_WAIT_MS = 2_000;

/**
 * Parses reports on a thread of their own, so that no report, however it is
 * written, holds the thread that answers HTTP. Should the thread die or a
 * parse overrun its deadline (PARSE_DEADLINE_MS), the parses it held fail with
 * ParserUnavailableError and the next parse starts a new thread.
 */
export function createThreadedReportParser({ deadlineMs = PARSE_DEADLINE_MS } = {}): ReportParse & { close(): Promise<void> } {
  let thread: Worker | undefined;
  let nextId = 0;
  const pending = new Map<number, { resolve(report: TimedReport): void; reject(error: Error): void; deadline: NodeJS.Timeout }>();

  function end(reason: string): void {
    const ending = thread;
    thread = undefined;
    for (const [id, waiter] of pending) {
      pending.delete(id);
      clearTimeout(waiter.deadline);
      waiter.reject(new ParserUnavailableError(reason));
    }
    if (ending) {
      ending.unref();
      void ending.terminate();
    }
  }

  function start(): Worker {
    if (thread) return thread;
    const started = startModuleThread(THREAD_ENTRY, null, { resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB } });
    started.unref(); // only parses in flight keep the process alive
    started.on('message', (reply: ParseReply) => {
      const waiter = pending.get(reply.id);
      if (!waiter) return;
      pending.delete(reply.id);
      clearTimeout(waiter.deadline);
      if (pending.size === 0) started.unref();
      if (reply.error !== undefined) return waiter.reject(new ParserUnavailableError(`The report parser failed: ${reply.error}`));
      waiter.resolve({ report: reply.report, startedAt: reply.startedAt, ms: reply.ms });
    });
    started.on('error', (error) => thread === started && end(`The report parser thread failed: ${error.message}`));
    started.on('exit', (code) => thread === started && end(`The report parser thread exited (code ${code})`));
    thread = started;
    return started;
  }

  const parse: ReportParse = (head) =>
    new Promise<TimedReport>((resolve, reject) => {
      const id = nextId++;
      // Started first: a thread that cannot start fails this parse alone, leaving no deadline behind to end the others.
      const target = start();
      // From the hand-over, the wait behind the parses before it included (INBOUND_MAX_PARSING are handed over at most).
      const deadline = setTimeout(() => end(`A report took over ${deadlineMs} ms to parse`), deadlineMs);
      pending.set(id, { resolve, reject, deadline });
      target.ref();
      // A copy of its own, moved to the thread: the caller's bytes stay the caller's.
      const copy = new Uint8Array(head);
      target.postMessage({ id, head: copy } satisfies ParseRequest, [copy.buffer]);
    });

  return Object.assign(parse, {
    async close() {
      const stopping = thread;
      end('The report parser was closed');
      if (stopping) await Promise.race([stopping.terminate(), new Promise((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref())]);
    },
  });
}
