import type { MimeMessage } from '../mime-message.js';
import type { BounceReason } from '../types.js';

/**
 * What the family readers share: a failed recipient made from what a layout
 * says of it, the message's RFC 3464 report read the generic way, and a
 * family's own wordings for its reasons.
 */

export { failedFinding, readDeliveryStatus as dsnReading } from '../generic-readers.js';

/** A family's wordings for its reasons, matched case-insensitively. */
export type Wordings = ReadonlyArray<readonly [BounceReason, ReadonlyArray<string | RegExp>]>;

/** The first reason whose wording the text contains, or null. */
export function reasonByWording(wordings: Wordings, text: string | null): BounceReason | null {
  if (!text) return null;
  const lower = text.toLowerCase();
  for (const [reason, patterns] of wordings) {
    if (patterns.some((p) => (typeof p === 'string' ? lower.includes(p.toLowerCase()) : p.test(text)))) return reason;
  }
  return null;
}

/** The lines of the message's text before the copy of the returned message, split at `end` when it is found. */
export function linesBefore(text: string, end: RegExp): string[] {
  const at = text.search(end);
  return (at >= 0 ? text.slice(0, at) : text).split('\n');
}

/** Whether any Received header of the message says it passed through a host matching the pattern. */
export function receivedVia(message: MimeMessage, host: RegExp): boolean {
  return message.headers('received').some((value) => host.test(value));
}
