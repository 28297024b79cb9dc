/** The tables of SES's events heard through SNS (migration 0027); part of `Database` in schema.ts. */

/** `received`: verified and answered, not yet applied; `applied`: acted on (what it came to in `outcome`); `failed`: applying it kept failing. */
export type SnsNotificationState = 'received' | 'applied' | 'failed';

/** An SNS notification that passed every check, by SNS's MessageId: a replay finds its row. */
export interface SnsNotificationsTable {
  id: string;
  topic_arn: string;
  /** SNS's `Type`: `Notification`, `SubscriptionConfirmation` or `UnsubscribeConfirmation`. */
  type: string;
  /** SNS's `Message`: for a Notification, SES's event JSON, kept until it is applied and for an operator after. */
  message: string;
  state: SnsNotificationState;
  /** JSON of what applying it came to (per recipient, with the reason for anything ignored); null until applied. */
  outcome: string | null;
  /** How often applying it was tried and failed. */
  tries: number;
  received_at: string;
  applied_at: string | null;
}

/** An allowed topic's subscription to this endpoint: `pending` until its SubscribeURL answered. */
export interface SnsSubscriptionsTable {
  topic_arn: string;
  /** SNS's SubscribeURL: it carries the confirmation token, so it is kept here and never logged. */
  subscribe_url: string;
  state: 'pending' | 'confirmed';
  /** Why the last confirmation try failed, or null. */
  last_error: string | null;
  requested_at: string;
  confirmed_at: string | null;
}
