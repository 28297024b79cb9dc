import type { Generated } from 'kysely';

/** The tables of the delivery worker's work: its jobs, the sandbox's kept messages, every hand-over's attempt; part of `Database` in schema.ts. */

/** The outbox: one row per accepted message, keyed by it, written with its log entries, claimed by the worker. */
export interface DeliveryJobsTable {
  message_id: string;
  workspace_id: string;
  state: 'pending' | 'done';
  attempts: Generated<number>;
  available_at: string;
  lease_owner: string | null;
  lease_expires_at: string | null;
  last_error: string | null;
  /** JSON array of the recipients still to try after a partial success; null: every recipient still `sent`. */
  pending_recipients: string | null;
  created_at: string;
  updated_at: string;
}

/** A message the sandbox provider kept instead of sending: the built MIME text and its envelope. */
export interface SandboxMessagesTable {
  message_id: string;
  workspace_id: string;
  /** JSON array of the envelope senders, one per recipient in `envelope_to` (each signed for its recipient). */
  envelope_from: string;
  /** JSON array of addresses. */
  envelope_to: string;
  raw: string;
  created_at: string;
}

/** What happened when a message was handed to a provider: one row per recipient per attempt, never changed. */
export type AttemptOutcome = 'delivered' | 'accepted' | 'temporary' | 'permanent' | 'failed' | 'suppressed';

export interface DeliveryAttemptsTable {
  id: string;
  workspace_id: string;
  message_id: string;
  recipient: string;
  /** 1 for the first attempt at the message. */
  attempt: number;
  provider: string;
  outcome: AttemptOutcome;
  /** The upstream's reply, or why the attempt was not made. */
  detail: string;
  /** How long the hand-over took; null when the attempt was not timed (no hand-over, an inbound report). */
  duration_ms: number | null;
  /** The upstream's own id for this hand-over (SES's MessageId); null where it gives none (0025). */
  provider_message_id: string | null;
  /** Which upstream the attempt went to: a workspace's (`ups_…`) or the server's (`server:smtp`); null before 0028 and for reports heard later. */
  upstream: string | null;
  created_at: string;
}
