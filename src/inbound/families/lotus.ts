import { returnedRecipient } from '../generic-readers.js';
import type { MimeMessage } from '../mime-message.js';
import { firstAddress } from '../smtp-text.js';
import type { BounceReading } from '../types.js';
import { dsnReading, failedFinding, linesBefore, reasonByWording, type Wordings } from './family-finding.js';

/**
 * HCL (formerly IBM, Lotus) Domino and Lotus Notes. Domino's router writes
 * "DELIVERY FAILURE: <reason>" as the subject and lays the body out as
 *
 *     Your message
 *       Subject: …
 *     was not delivered to:
 *       ada@example.net
 *     because:
 *       User ada (ada@example.net) not listed in Domino Directory
 *
 * (a section per recipient, sometimes with an RFC 3464 part whose status is a
 * bare 5.0.0). Older Notes servers write "Undeliverable message" with a
 * "------- Failure Reasons --------" section: a reason line, then the address.
 * Their reasons are the directory's words, which say nothing to the generic
 * wording tables: "not listed" in the directory is an unknown user.
 */

const LOTUS_WORDINGS: Wordings = [
  // \u30c7\u30a3\u30ec\u30af\u30c8\u30ea: "directory" in the Japanese editions' messages.
  ['userunknown', ['not listed in domino directory', 'not listed in public name & address book', 'not listed in the domino directory', /\u30c7\u30a3\u30ec\u30af\u30c8\u30ea(?:\u306b\u306f\u898b\u3064\u304b\u308a\u307e\u305b\u3093|\u306e\u30ea\u30b9\u30c8\u306b\u3042\u308a\u307e\u305b\u3093)/]],
  ['filtered', ['cannot route mail to user']],
  ['systemerror', ['several matches found in domino directory', 'several matches found in public name']],
  ['networkerror', ['message has exceeded maximum hop count']],
  ['hostunknown', ['no route found to domain']],
];

const DOMINO_SUBJECT = /^\s*DELIVERY[ _]FAILURE\b/i;
const NOT_DELIVERED_TO = /^\s*was not delivered to:\s*$/i;
const BECAUSE = /^\s*because:\s*$/i;

interface Section {
  recipients: string[];
  because: string[];
}

export function readDomino(message: MimeMessage): BounceReading | null {
  const lines = message.text.split('\n');
  if (!DOMINO_SUBJECT.test(message.subject) && !(lines.some((l) => NOT_DELIVERED_TO.test(l)) && lines.some((l) => BECAUSE.test(l)))) return null;

  const sections: Section[] = [];
  let state: 'before' | 'recipients' | 'because' = 'before';
  for (const line of lines) {
    if (NOT_DELIVERED_TO.test(line)) {
      sections.push({ recipients: [], because: [] });
      state = 'recipients';
    } else if (BECAUSE.test(line)) {
      state = sections.length ? 'because' : 'before';
    } else if (/^\s*Your message\s*$/i.test(line)) {
      state = 'before';
    } else if (state === 'recipients') {
      const address = firstAddress(line);
      if (address) sections[sections.length - 1]!.recipients.push(address);
    } else if (state === 'because' && line.trim()) {
      sections[sections.length - 1]!.because.push(line.trim());
    } else if (state === 'because' && sections[sections.length - 1]!.because.length) {
      state = 'before';
    }
  }

  const said = new Map<string, string>();
  for (const section of sections) for (const recipient of section.recipients) said.set(recipient, section.because.join(' '));
  const dsn = dsnReading(message);
  if (dsn) {
    dsn.findings.forEach((finding, i) => {
      const because = (finding.recipient && said.get(finding.recipient)) || (said.size === 1 ? [...said.values()][0]! : null);
      // The router's "because:" is the reason; the DSN part rarely has a Diagnostic-Code of its own.
      if (because && !dsn.dsn?.recipients[i]?.diagnostic) finding.diagnostic = because;
      finding.reason = reasonByWording(LOTUS_WORDINGS, [because, finding.diagnostic].filter(Boolean).join(' '));
    });
    return dsn;
  }
  const subjectReason = message.subject.replace(DOMINO_SUBJECT, '').replace(/^[\s:]+/, '');
  const findings = [...said].map(([recipient, because]) => {
    const diagnostic = because || subjectReason || null;
    return failedFinding(recipient, diagnostic, reasonByWording(LOTUS_WORDINGS, diagnostic));
  });
  return findings.length ? { findings, dsn: null } : null;
}

const NOTES_SUBJECT = /^\s*Undeliverable message\b/i;
const FAILURE_REASONS = /^-{3,}\s*Failure Reasons\s*-+\s*$/im;
const RETURNED_MESSAGE = /^-{3,}\s*Returned Message\s*-+\s*$/im;

export function readNotes(message: MimeMessage): BounceReading | null {
  const start = message.text.search(FAILURE_REASONS);
  if (!NOTES_SUBJECT.test(message.subject) || start < 0) return null;
  const lines = linesBefore(message.text.slice(start), RETURNED_MESSAGE).slice(1);

  // A reason line names the failure of the address on the line after it.
  const failures: Array<{ recipient: string; reasons: string[] }> = [];
  let pending: string[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    if (!line || line.startsWith('-')) continue;
    if (/^\S+@\S+$/.test(line)) {
      failures.push({ recipient: firstAddress(line) ?? line.toLowerCase(), reasons: pending });
      pending = [];
    } else pending.push(line);
  }
  if (pending.length) {
    if (failures.length) failures.filter((f) => !f.reasons.length).forEach((f) => (f.reasons = pending));
    else failures.push({ recipient: returnedRecipient(message) ?? '', reasons: pending });
  }
  const findings = failures
    .filter((f) => f.recipient)
    .map((f) => {
      const diagnostic = f.reasons.join(' ') || null;
      return failedFinding(f.recipient, diagnostic, reasonByWording(LOTUS_WORDINGS, diagnostic));
    });
  return findings.length ? { findings, dsn: null } : null;
}
