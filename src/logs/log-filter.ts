import type { LogStatus, LogType } from '../db/schema.js';

/** What GET /v1/send/logs filters by; every field optional, all combinable. */
export interface LogFilter {
  type?: LogType | undefined;
  status?: LogStatus | undefined;
  message_id?: string | undefined;
  /** A recipient, compared case-insensitively. */
  to?: string | undefined;
  /** A sender's bare address, compared case-insensitively. */
  from_email?: string | undefined;
  /** `created_at` at or after (ISO 8601 UTC). */
  since?: string | undefined;
  /** `created_at` before (ISO 8601 UTC). */
  until?: string | undefined;
  /** Entries of messages sent with this tag (`tag=name:value`). */
  tag?: { name: string; value: string } | undefined;
}
