import { messageIdFromReturnPath } from './correlation.js';
import { looksLikeReturnPath, type ReturnPathSigner, type ReturnPathTarget } from './return-path.js';
import type { ParsedReport } from './types.js';

/** Who a report may speak for: one recipient of one message, or no one, and why. */
export type ReportTarget =
  | ({ ok: true; returnPath: string } & ReturnPathTarget)
  | { ok: false; reason: string; /** The message it seems to be about, for the operator's log only. */ messageId: string | null };

/**
 * The recipient a report may act on: the one the signed return path it came
 * to was made for. A report that came to no return path (the complaint
 * address, where feedback loops send) may act on the recipient of a signed
 * return path it quotes as the original's envelope sender (the ARF
 * Original-Mail-From, the returned Return-Path). Nothing else ties a report to
 * a recipient: the message ids, envelope ids and addresses a report states
 * are the sender's to write, and anyone can send a report.
 */
export function reportTarget(report: ParsedReport, rcptTo: string[], signer: ReturnPathSigner, now = Date.now()): ReportTarget {
  const cameTo = rcptTo.filter(looksLikeReturnPath);
  const candidates = cameTo.length > 0 ? cameTo : report.returnPaths;
  let reason = cameTo.length > 0 ? 'it came to no valid return path' : 'it came to the complaint address and quotes no signed return path';
  for (const address of candidates) {
    const check = signer.verify(address, now);
    if (check.ok) return { ok: true, returnPath: address.toLowerCase(), messageId: check.messageId, recipientIndex: check.recipientIndex };
    reason = `${check.reason} (${address.toLowerCase()})`;
  }
  const messageId = candidates.map(messageIdFromReturnPath).find((id) => id !== null) ?? report.envelopeId;
  return { ok: false, reason, messageId: messageId?.toLowerCase() ?? null };
}
