import type { MimeMessage } from '../mime-message.js';
import type { BounceReading, BounceReason } from '../types.js';
import { dsnReading } from './family-finding.js';

/**
 * PowerMTA (SparkPost/Bird's MTA): an RFC 3464 report ("Delivery report",
 * "Hello, this is the mail server on …") whose recipient fields carry
 * `X-PowerMTA-BounceCategory`, PowerMTA's own verdict on the remote's reply.
 * The category is more telling than the reply (often a bare 5.0.0 or a
 * server's "550 mailbox unavailable"), so it decides the reason, except
 * where it only says the connection or routing failed: then the reply does.
 */

/** PowerMTA's bounce categories (its User's Guide, "bounce categories"). */
const CATEGORY_REASONS: Record<string, BounceReason | null> = {
  'bad-mailbox': 'userunknown',
  'bad-domain': 'hostunknown',
  'inactive-mailbox': 'suspend',
  'quota-issues': 'mailboxfull',
  'message-expired': 'expired',
  'policy-related': 'policyviolation',
  'spam-related': 'spamdetected',
  'virus-related': 'virusdetected',
  'content-related': 'contenterror',
  'invalid-sender': 'rejected',
  'relaying-issues': 'norelaying',
  'protocol-errors': 'syntaxerror',
  'no-answer-from-host': null,
  'bad-connection': null,
  'routing-errors': null,
  'bad-configuration': null,
  other: null,
};

export function readPowerMta(message: MimeMessage): BounceReading | null {
  const dsn = dsnReading(message);
  if (!dsn?.dsn) return null;
  const categories = dsn.dsn.recipients.map((r) => r.extensions.get('x-powermta-bouncecategory')?.trim().toLowerCase() ?? null);
  if (!categories.some(Boolean) && !/\bPowerMTA\b/i.test(message.header('x-mailer') ?? '')) return null;
  dsn.findings.forEach((finding, i) => {
    const category = categories[i];
    if (category) finding.reason = CATEGORY_REASONS[category] ?? null;
  });
  return dsn;
}
