import type { Generated } from 'kysely';

/**
 * The tables of what Mailroom posts and replays over HTTP (migrations 0006 and
 * 0017): webhook endpoints, their deliveries and attempts, and the responses
 * kept for Idempotency-Key; part of `Database` in schema.ts.
 */

/** A workspace's webhook endpoint. */
export interface WebhooksTable {
  id: string;
  workspace_id: string;
  url: string;
  /** JSON array of the event types it receives. */
  events: string;
  /** The signing secret (`whsec_…`), encrypted at rest when MAILROOM_SECRET_KEY is set. */
  secret: string;
  created_at: string;
  updated_at: string;
}

/** One event to post to one endpoint: written with the event, claimed by the dispatcher like a delivery job. */
export interface WebhookDeliveriesTable {
  /** Also the `webhook-id` header: the same on every retry, so receivers can deduplicate. */
  id: string;
  webhook_id: string;
  workspace_id: string;
  event_id: string;
  event_type: string;
  /** The JSON body, exactly as signed and posted. */
  payload: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: Generated<number>;
  available_at: string;
  lease_owner: string | null;
  lease_expires_at: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

/** Every post of a delivery: never changed. */
export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  attempt: number;
  status_code: number | null;
  /** A bounded slice of the receiver's answer. */
  response_body: string | null;
  error: string | null;
  duration_ms: number;
  created_at: string;
}

/** A client's Idempotency-Key on a send, per workspace, for 24 hours (migration 0017). */
export interface IdempotencyKeysTable {
  workspace_id: string;
  key: string;
  /** SHA-256 (hex) of the request's method, path and canonical JSON body. */
  fingerprint: string;
  state: 'in_flight' | 'done';
  /** The random token of the request holding an in-flight row; null once done. */
  lease: string | null;
  /** When the current holder claimed the row; an in-flight row claimed long ago is taken over. */
  claimed_at: string;
  response_status: number | null;
  /** JSON object of the response headers to replay. */
  response_headers: string | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
}
