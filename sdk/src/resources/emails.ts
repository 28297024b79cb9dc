import type { Result } from '../result.js';
import { pathOf, type Transport } from '../transport.js';
import type { CanceledEmail, Email, EmailContent, SendEmailRequest, SendEmailResult } from '../types.js';

export interface SendOptions {
  /**
   * Sent as `Idempotency-Key` (1–256 characters). By default a fresh UUID per
   * call, reused by the call's retries, so a retry never sends twice; give your
   * own (an order id, say) to make a send idempotent across calls too.
   */
  idempotencyKey?: string;
}

/** Sending (POST /v1/send, /v1/send/batch) and what became of a message (/v1/messages/{id}). */
export class Emails {
  constructor(private readonly transport: Transport) {}

  send(email: SendEmailRequest, options: SendOptions = {}): Promise<Result<SendEmailResult>> {
    return this.transport.call({ method: 'POST', path: '/v1/send', body: email, headers: idempotencyHeader(options) });
  }

  /** 1–100 sends in one request, all or nothing at validation; results in the same order. */
  batch(emails: SendEmailRequest[], options: SendOptions = {}): Promise<Result<SendEmailResult[]>> {
    return this.transport.call({ method: 'POST', path: '/v1/send/batch', body: emails, headers: idempotencyHeader(options) });
  }

  /** The message and, per recipient, its status, events and delivery attempts. */
  get(messageId: string): Promise<Result<Email>> {
    return this.transport.call({ method: 'GET', path: pathOf`/v1/messages/${messageId}` });
  }

  /** The bodies as sent to the API, and the MIME as handed over (`raw`). */
  content(messageId: string): Promise<Result<EmailContent>> {
    return this.transport.call({ method: 'GET', path: pathOf`/v1/messages/${messageId}/content` });
  }

  /** A scheduled send, before it is due (409 after). */
  cancel(messageId: string): Promise<Result<CanceledEmail>> {
    return this.transport.call({ method: 'POST', path: pathOf`/v1/messages/${messageId}/cancel` });
  }
}

function idempotencyHeader(options: SendOptions): Record<string, string> {
  return { 'idempotency-key': options.idempotencyKey ?? randomUuid() };
}

/** crypto.randomUUID where it exists (it needs a secure context in browsers), else a v4 UUID from getRandomValues. */
function randomUuid(): string {
  const crypto = globalThis.crypto;
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
