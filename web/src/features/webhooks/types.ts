/** The event types an endpoint may receive (the server's WEBHOOK_EVENT_TYPES, SPEC.md §6.1), with what each means. */
export const EVENT_TYPES = [
  { type: 'delivered', meaning: "accepted by the recipient's mail server" },
  { type: 'bounced', meaning: 'permanently rejected' },
  { type: 'complained', meaning: 'marked as spam by the recipient' },
  { type: 'suppressed', meaning: 'not sent: the address is on the suppression list' },
  { type: 'failed', meaning: 'failed before reaching the mail provider' },
] as const;

/** Events beside SPEC.md's (the server's OPT_IN_EVENT_TYPES): sent only to endpoints that tick them. */
export const OPT_IN_EVENT_TYPES = [
  { type: 'opened', meaning: 'a tracked message was opened (machines flagged)' },
  { type: 'clicked', meaning: 'a tracked link was clicked (machines flagged)' },
  { type: 'upstream.down', meaning: 'an upstream failed five times in a minute: mail fails over to the next one' },
  { type: 'upstream.up', meaning: 'a down upstream took mail again' },
] as const;

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  /** Enough to tell secrets apart; null when the stored one cannot be read (rotate to mend). */
  masked_secret: string | null;
  created_at: string;
}

export interface WebhookSummary extends Webhook {
  /** Of the endpoint's latest finished deliveries (at most 100). */
  recent_deliveries: { finished: number; delivered: number };
  success_rate: number | null;
}

export interface Delivery {
  id: string;
  event_type: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
}

export interface WebhookDetail extends Webhook {
  deliveries: Delivery[];
}

/** The one answer that holds a whole secret: creation or rotation. */
export interface ShownSecret {
  title: string;
  secret: string;
}
