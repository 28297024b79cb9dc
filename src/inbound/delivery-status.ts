import { normalizeNewlines } from './mime-message.js';
import { collapse, firstAddress, leadingStatus } from './smtp-text.js';

/**
 * RFC 3464 delivery status notifications: the `message/delivery-status`
 * part (or the same fields written into a text part, as some MTAs and
 * forwarders do). One group of per-message fields, then one group per
 * recipient, groups separated by blank lines.
 */

export interface DsnRecipient {
  /** Original-Recipient when it is an address (the address the sender gave), else Final-Recipient; lower-cased. */
  recipient: string | null;
  /** First word of Action, lower-cased (`failed`, `delayed`, `delivered`, `relayed`, `expanded`). */
  action: string | null;
  /** The code at the start of Status, or null. */
  status: string | null;
  /** Diagnostic-Code without its type, whitespace collapsed, or null when empty. */
  diagnostic: string | null;
  /** The Diagnostic-Code's type (`smtp`, `x-unix`, `x-postfix`…), lower-cased, or null. */
  diagnosticType: string | null;
  remoteMta: string | null;
  /** The reporter's own per-recipient fields (`x-powermta-bouncecategory`…), names lower-cased. */
  extensions: ReadonlyMap<string, string>;
}

export interface DsnReport {
  /** Original-Envelope-Id: the ENVID the sender gave (Mailroom gives its message id). */
  envelopeId: string | null;
  /** X-Original-Message-ID, which some reporters (Google) add to the per-message fields. */
  originalMessageId: string | null;
  reportingMta: string | null;
  /** The envelope sender the reporter names (`X-Postfix-Sender` and the like), if any. */
  sender: string | null;
  recipients: DsnRecipient[];
}

type Fields = Map<string, string>;

const PER_RECIPIENT = ['final-recipient', 'original-recipient', 'action', 'status', 'diagnostic-code', 'remote-mta', 'last-attempt-date', 'will-retry-until'];
const FIELD = /^([A-Za-z][A-Za-z0-9-]*)[ \t]*:[ \t]*(.*)$/;

/** Reads a delivery-status part. Null when it holds no recipient at all. */
export function parseDeliveryStatus(content: string): DsnReport | null {
  const perMessage: Fields = new Map();
  const recipients: Fields[] = [];
  let current: Fields | null = null;
  let lastName: string | null = null;

  const startRecipient = () => {
    current = new Map();
    recipients.push(current);
  };

  for (const line of normalizeNewlines(content).split('\n')) {
    if (line.trim() === '') {
      current = null;
      lastName = null;
      continue;
    }
    if (/^[ \t]/.test(line) && lastName) {
      const target: Fields = current ?? perMessage;
      target.set(lastName, `${target.get(lastName) ?? ''} ${line.trim()}`);
      continue;
    }
    const match = FIELD.exec(line);
    if (!match) {
      lastName = null;
      continue;
    }
    const name = match[1]!.toLowerCase();
    const value = match[2]!.trim();
    if (PER_RECIPIENT.includes(name)) {
      // A second recipient written without the blank line between them.
      const fields = current as Fields | null;
      if (!fields || (fields.has(name) && ['final-recipient', 'original-recipient', 'action'].includes(name))) startRecipient();
      (current as Fields | null)!.set(name, value);
    } else if (current && name.startsWith('x-')) {
      (current as Fields).set(name, value);
    } else if (!perMessage.has(name)) {
      perMessage.set(name, value);
    }
    lastName = name;
  }

  const parsed = recipients.map(toRecipient).filter((r) => r.recipient || r.action || r.status);
  if (!parsed.length) return null;
  return {
    envelopeId: perMessage.get('original-envelope-id')?.trim() || null,
    originalMessageId: messageIdIn(perMessage.get('x-original-message-id')),
    reportingMta: typeAndValue(perMessage.get('reporting-mta')).value,
    sender: senderIn(perMessage),
    recipients: parsed,
  };
}

function toRecipient(fields: Fields): DsnRecipient {
  const original = typeAndValue(fields.get('original-recipient'));
  const final = typeAndValue(fields.get('final-recipient'));
  const actual = typeAndValue(fields.get('x-actual-recipient'));
  const addressOf = (field: { type: string | null; value: string | null }) =>
    field.value && (!field.type || field.type === 'rfc822' || field.type === 'utf-8') ? firstAddress(field.value) : null;
  const diagnostic = typeAndValue(fields.get('diagnostic-code'));
  return {
    recipient: addressOf(original) ?? addressOf(final) ?? addressOf(actual),
    action: fields.get('action')?.trim().split(/\s+/)[0]?.toLowerCase() || null,
    status: leadingStatus(fields.get('status')),
    diagnostic: diagnostic.value ? collapse(diagnostic.value) || null : null,
    diagnosticType: diagnostic.type,
    remoteMta: typeAndValue(fields.get('remote-mta')).value,
    extensions: new Map([...fields].filter(([name]) => name.startsWith('x-'))),
  };
}

/** `rfc822; a@b` → {type: 'rfc822', value: 'a@b'}; a value without a type keeps it all. */
function typeAndValue(raw: string | undefined): { type: string | null; value: string | null } {
  if (!raw?.trim()) return { type: null, value: null };
  const match = /^\s*([A-Za-z][A-Za-z0-9-]{0,20})\s*;\s*(.*)$/s.exec(raw);
  if (match) return { type: match[1]!.toLowerCase(), value: match[2]!.trim() || null };
  return { type: null, value: raw.trim() };
}

/** `X-Postfix-Sender: rfc822; a@b`, `X-SendGrid-Sender: <a@b>` and other reporters' envelope-sender fields. */
function senderIn(perMessage: Fields): string | null {
  for (const [name, value] of perMessage) {
    if (/^x-[a-z0-9-]*-sender$/.test(name) || name === 'original-mail-from') {
      const address = firstAddress(value);
      if (address) return address;
    }
  }
  return null;
}

function messageIdIn(value: string | undefined): string | null {
  const match = value ? /<[^<>\s]+>/.exec(value) : null;
  return match ? match[0] : null;
}

/**
 * DSN fields written into a text part (a forwarded bounce, or a provider's
 * "technical report"): read from the first field line on, up to `end`.
 */
export function deliveryStatusInText(text: string): DsnReport | null {
  const start = /^(?:Reporting-MTA|Original-Envelope-Id|Final-Recipient|Original-Recipient)[ \t]*:/im.exec(text);
  if (!start) return null;
  const rest = text.slice(start.index);
  const boundary = /^--\S+[ \t]*$/m.exec(rest);
  const report = parseDeliveryStatus(boundary ? rest.slice(0, boundary.index) : rest);
  return report && report.recipients.some((r) => r.action || r.status) ? report : null;
}
