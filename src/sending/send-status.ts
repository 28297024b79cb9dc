import type { LogStatus } from '../db/schema.js';

/** The statuses a recipient's `send` log entry can hold. */
export type SendStatus = Extract<LogStatus, 'sent' | 'delivered' | 'bounced' | 'failed' | 'suppressed'>;

/**
 * Where a `send` entry may move from each status (DESIGN.md §3: statuses only
 * move forward). Written out rather than implied by an order, so each edge is
 * a decision:
 * - `sent` (accepted, not yet handed over for good) ends `delivered`,
 *   `bounced`, `failed` (attempts ran out, or the send could not be tried) or
 *   `suppressed` (the address joined the suppression list before delivery);
 * - `delivered` may still become `bounced`: an upstream MTA can accept a
 *   message and bounce it later;
 * - `bounced`, `failed` and `suppressed` are final. A delivery report arriving
 *   after a bounce is late news, not a correction.
 * Soft bounces and temporary failures are attempts, not statuses. Complaints
 * are log entries of their own and do not move the `send` entry.
 * docs/architecture.md shows the same table.
 */
export const SEND_STATUS_TRANSITIONS: Readonly<Record<SendStatus, readonly SendStatus[]>> = {
  sent: ['delivered', 'bounced', 'failed', 'suppressed'],
  delivered: ['bounced'],
  bounced: [],
  failed: [],
  suppressed: [],
};

/**
 * What an event that would set `to` does to an entry now at `from`: `move`
 * it, nothing because it is already there (`duplicate`: a repeated report is
 * recorded once), or nothing because the move would go backward (`refused`).
 */
export function judgeTransition(from: SendStatus, to: SendStatus): 'move' | 'duplicate' | 'refused' {
  if (from === to) return 'duplicate';
  return SEND_STATUS_TRANSITIONS[from].includes(to) ? 'move' : 'refused';
}
