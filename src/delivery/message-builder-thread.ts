/**
 * Entry of the message builder thread (see threaded-message-builder.ts):
 * composes and signs messages with the same buildMessage as any caller.
 */
import { parentPort, type MessagePort } from 'node:worker_threads';
import type { MessageAttachmentsTable, MessagesTable } from '../db/schema.js';
import { ownedBytes } from '../sending/index.js';
import type { MessageTracking } from '../tracking/index.js';
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
  tracking?: MessageTracking;
}
export type BuildReply = { id: number; built: BuiltMessage; error?: undefined } | { id: number; built?: undefined; error: string };

function run(port: MessagePort): void {
  port.on('message', (request: BuildRequest) => {
    const attachments = request.attachments.map((a) => ({ ...a, content: Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength) }));
    buildMessage(request.message, request.domain, request.envelopes, attachments, new Date(request.date), request.tracking).then(
      (built) => {
        // The MIME moves back rather than being copied (it is as large as the attachments and a third more). A tracked
        // message's copies move too; its `raw` is its first copy, the same bytes, which cross once.
        const envelopes = built.envelopes.map((e) => (e.raw ? { ...e, raw: ownedBytes(e.raw) } : e));
        const raw = envelopes[0]?.raw ?? ownedBytes(built.raw);
        const moved = new Set([raw, ...envelopes.flatMap((e) => (e.raw ? [e.raw] : []))].map((bytes) => bytes.buffer as ArrayBuffer));
        port.postMessage({ id: request.id, built: { ...built, envelopes, raw } } satisfies BuildReply, [...moved]);
      },
      (error: unknown) => port.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies BuildReply),
    );
  });
}

if (parentPort) run(parentPort);
