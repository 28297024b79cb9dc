import type { MessagesTable } from '../db/schema.js';
import type { Mailbox } from './email-address.js';

type Addressed = Pick<MessagesTable, 'recipients' | 'cc' | 'bcc'>;

const list = (json: string | null): Mailbox[] => (json ? (JSON.parse(json) as Mailbox[]) : []);

export const toOf = (message: Pick<MessagesTable, 'recipients'>): Mailbox[] => list(message.recipients);
export const ccOf = (message: Pick<MessagesTable, 'cc'>): Mailbox[] => list(message.cc);
export const bccOf = (message: Pick<MessagesTable, 'bcc'>): Mailbox[] => list(message.bcc);

/**
 * Every recipient of a message, To then Cc then Bcc, each once (send-request.ts).
 * A recipient's place in this list is what its signed return path names
 * (inbound/return-path.ts): the order must never change for a stored message.
 */
export function allRecipientsOf(message: Addressed): Mailbox[] {
  return [...toOf(message), ...ccOf(message), ...bccOf(message)];
}

/** The Reply-To mailboxes: a JSON array, or one bare mailbox in rows written before migration 0015. */
export function replyToOf(message: Pick<MessagesTable, 'reply_to'>): Mailbox[] {
  if (!message.reply_to) return [];
  const parsed = JSON.parse(message.reply_to) as Mailbox | Mailbox[];
  return Array.isArray(parsed) ? parsed : [parsed];
}
