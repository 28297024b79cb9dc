/** The tables of open and click tracking (migration 0030); part of `Database` in schema.ts. */

/** Engagement counts of one workspace in one hour (UTC): of opens and clicks by their time, of tracked hand-overs by theirs. */
export interface EngagementHourlyTable {
  workspace_id: string;
  /** The hour's start, ISO 8601 UTC (`2026-12-01T10:00:00.000Z`). */
  hour: string;
  /** Opens and clicks by people (proxied opens among them), then by machines. */
  opened: number;
  unique_opened: number;
  clicked: number;
  unique_clicked: number;
  machine_opened: number;
  machine_clicked: number;
  /** Recipients handed over with open, and with click, tracking on: what the rates are of. */
  tracked_opens: number;
  tracked_clicks: number;
}

/** The first open or click of a person for one recipient of one message: what makes an open or click unique. */
export interface EngagementFirstsTable {
  message_id: string;
  /** The recipient's place among the message's To, Cc and Bcc recipients. */
  recipient_index: number;
  kind: 'open' | 'click';
  at: string;
}
