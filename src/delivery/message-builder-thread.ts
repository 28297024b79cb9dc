/**
 * Entry of the message builder thread (see threaded-message-builder.ts):
 * composes and signs messages with the same buildMessage as any caller.
 */
import { parentPort, type MessagePort } from 'node:worker_threads';
import type { MessagesTable } from '../db/schema.js';
import { buildMessage, type BuiltMessage, type Envelope, type SigningDomain } from './message-builder.js';

export interface BuildRequest {
  id: number;
  message: MessagesTable;
  domain: SigningDomain;
  envelopes: Envelope[];
  /** ISO time for the Date header. */
  date: string;
}
export type BuildReply = { id: number; built: BuiltMessage; error?: undefined } | { id: number; built?: undefined; error: string };

function run(port: MessagePort): void {
  port.on('message', (request: BuildRequest) => {
    buildMessage(request.message, request.domain, request.envelopes, new Date(request.date)).then(
      (built) => port.postMessage({ id: request.id, built } satisfies BuildReply),
      (error: unknown) => port.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies BuildReply),
    );
  });
}

if (parentPort) run(parentPort);
