/**
 * Entry of the report parser thread (threaded-report-parser.ts): reads
 * inbound reports with the same parseInboundMessage as any caller, at a
 * lower OS priority than the thread answering HTTP.
 */
import { parentPort, type MessagePort } from 'node:worker_threads';
import { lowerThreadPriority } from '../lib/thread-priority.js';
import { parseInboundMessage, type ParsedReport } from './parse-report.js';

/** The nice value of the thread: the delivery thread's default (WORKER_NICE). */
const PARSER_NICE = 10;

export interface ParseRequest {
  id: number;
  /** The message's first bytes (read-limits.ts: what the parser reads), transferred. */
  head: Uint8Array;
}
export type ParseReply =
  | { id: number; report: ParsedReport; startedAt: number; ms: number; error?: undefined }
  | { id: number; report?: undefined; error: string };

function run(port: MessagePort): void {
  try {
    lowerThreadPriority(PARSER_NICE);
  } catch {
    // Lowering a priority needs no privilege; where it fails anyway, the thread parses at the API's.
  }
  port.on('message', ({ id, head }: ParseRequest) => {
    const startedAt = performance.timeOrigin + performance.now();
    parseInboundMessage(Buffer.from(head.buffer, head.byteOffset, head.byteLength)).then(
      (report) => port.postMessage({ id, report, startedAt, ms: performance.timeOrigin + performance.now() - startedAt } satisfies ParseReply),
      (error: unknown) => port.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies ParseReply),
    );
  });
}

if (parentPort) run(parentPort);
