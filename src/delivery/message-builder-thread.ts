/**
 * Entry of the message builder thread (see threaded-message-builder.ts):
 * composes and signs messages with the same buildMessage as any caller.
 */
import { parentPort, type MessagePort } from 'node:worker_threads';
import type { MessageAttachmentsTable, MessagesTable } from '../db/schema.js';
import { ownedBytes } from '../sending/index.js';
import { buildMessage, type BuiltMessage, type Envelope, type SigningDomain } from './message-builder.js';

export interface BuildRequest {
  id: number;
  message: MessagesTable;
  domain: SigningDomain;
  envelopes: Envelope[];
  /** Their bytes arrive transferred, as plain Uint8Arrays. */
  attachments: MessageAttachmentsTable[];
  /** ISO time for the Date header. */
  date: string;
}
export type BuildReply = { id: number; built: BuiltMessage; error?: undefined } | { id: number; built?: undefined; error: string };

function run(port: MessagePort): void {
  port.on('message', (request: BuildRequest) => {
    const attachments = request.attachments.map((a) => ({ ...a, content: Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength) }));
    buildMessage(request.message, request.domain, request.envelopes, attachments, new Date(request.date)).then(
      (built) => {
        // The MIME moves back rather than being copied (it is as large as the attachments and a third more).
        const raw = ownedBytes(built.raw);
        port.postMessage({ id: request.id, built: { ...built, raw } } satisfies BuildReply, [raw.buffer as ArrayBuffer]);
      },
      (error: unknown) => port.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies BuildReply),
    );
  });
}

if (parentPort) run(parentPort);
