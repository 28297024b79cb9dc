import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import type { Store } from '../../src/db/store.js';
import { newId } from '../../src/lib/ids.js';
import { sendBody } from './test-app.js';

export interface SesSend {
  messageId: string;
  /** SES's MessageId of each recipient's SendEmail, by address. */
  sesIds: Record<string, string>;
  /** The Message-ID header Mailroom wrote (`<msg_…@domain>`). */
  messageIdHeader: string;
}

/** An id shaped as SES's are: `0100018f…-…-000000`. */
export function sesMessageId(): string {
  return `010001${randomUUID().replaceAll('-', '').slice(0, 10)}-${randomUUID()}-000000`;
}

type Caller = (method: string, url: string, options?: { body?: unknown }) => Promise<{ json(): any }>;

/**
 * What a send through the `ses` provider leaves: accepted through the API, then each recipient handed
 * over with its own SendEmail (an attempt with provider `ses`, outcome `accepted` and SES's MessageId),
 * the recipients' entries still `sent`. `acceptedAt`: when SES accepted them (an old time for an overdue one).
 */
export async function sendThroughSes(call: Caller, store: Store, to: string[], options: { acceptedAt?: Date } = {}): Promise<SesSend> {
  const data = (await call('POST', '/v1/send', { body: sendBody({ to }) })).json().data;
  assert.equal(data.status, 'sent');
  const messageId = data.message_id as string;
  const message = await store.messages.find(messageId);
  const createdAt = (options.acceptedAt ?? new Date()).toISOString();
  const sesIds = Object.fromEntries(to.map((address) => [address, sesMessageId()]));
  await store.deliveryAttempts.insertMany(
    to.map((recipient) => ({
      id: newId('att'), workspace_id: message!.workspace_id, message_id: messageId, recipient, attempt: 1, provider: 'ses', outcome: 'accepted',
      detail: 'Accepted by SES', duration_ms: 120, provider_message_id: sesIds[recipient]!, upstream: 'server:ses', created_at: createdAt,
    })),
  );
  return { messageId, sesIds, messageIdHeader: `<${messageId}@sandbox.mailroom.test>` };
}
