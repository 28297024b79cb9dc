import type { AddressObject, EmailAddress, HeaderLines } from 'mailparser';
import { ValidationError } from '../lib/errors.js';
import { formatMailbox, normalizeAddress, type Mailbox } from '../lib/email-address.js';
import { parseMailboxField } from '../sending/index.js';

/** The headers a submitted message's addressing is read from, as the refusals name them. */
export type AddressHeaderName = 'From' | 'To' | 'Cc' | 'Reply-To';

// Whether the provider can deliver a non-ASCII local part is the send service's to say, as for an HTTP send.
const ANY_LOCAL_PART = { utf8LocalPart: true };

/**
 * The mailboxes of address header `name` under POST /v1/send's rules for an address field
 * (send-request.ts): each mailbox as written must be one the HTTP API takes — `address`, `Name <address>`,
 * or `"Name" <address>` where the name holds specials — and each as mailparser decoded it (RFC 2047 names)
 * passes the same rules again. Read by mailparser alone, a mailbox the HTTP API refuses would be mended
 * into another: `x@bank.example <a@acme.example>` would become a sender named "x@bank.example", text after
 * the address would join the name, a comment would become one. Refusals name the header.
 */
export function addressHeader(name: AddressHeaderName, lines: HeaderLines, decoded: AddressObject | AddressObject[] | undefined): EmailAddress[] {
  const written = lines.filter((line) => line.key === name.toLowerCase());
  if (written.length === 0) return [];
  if (written.length > 1) throw new ValidationError(`${name} must be given once (the message has ${written.length} ${name} headers)`);
  const value = headerValue(written[0]!.line);
  const asWritten = splitAddressList(value).map((mailbox) => parseMailboxField(name, mailbox, ANY_LOCAL_PART));
  const mailboxes = mailboxesOf(decoded);
  const same = (mailbox: Mailbox, index: number) => {
    const read = parseMailboxField(name, formatMailbox({ name: mailboxes[index]!.name, address: mailboxes[index]!.address! }), ANY_LOCAL_PART);
    return normalizeAddress(read.address) === normalizeAddress(mailbox.address);
  };
  // Both readings of a header the rules took list the same addresses; should mailparser ever read another, neither is sent.
  if (asWritten.length !== mailboxes.length || !asWritten.every(same)) throw new ValidationError(`${name} cannot be read as a list of mailboxes (got ${JSON.stringify(value)})`);
  return mailboxes;
}

/**
 * A header line's value, unfolded, with its 8-bit text read as UTF-8 (RFC 6532): mailparser hands the
 * lines over byte for byte, as Latin-1.
 */
function headerValue(line: string): string {
  const value = line.slice(line.indexOf(':') + 1).replace(/\r?\n(?=[ \t])/g, '');
  return Buffer.from(value, 'latin1').toString('utf8').trim();
}

/** An address list's mailboxes as written: split at the commas outside quoted strings and angle brackets; empty ones left out. */
function splitAddressList(value: string): string[] {
  const mailboxes: string[] = [];
  let start = 0;
  let quoted = false;
  let angled = false;
  for (let i = 0; i < value.length; i++) {
    const char = value[i];
    if (quoted) {
      if (char === '\\') i++;
      else if (char === '"') quoted = false;
    } else if (char === '"') quoted = true;
    else if (char === '<') angled = true;
    else if (char === '>') angled = false;
    else if (char === ',' && !angled) {
      mailboxes.push(value.slice(start, i));
      start = i + 1;
    }
  }
  mailboxes.push(value.slice(start));
  return mailboxes.map((mailbox) => mailbox.trim()).filter((mailbox) => mailbox !== '');
}

/** The mailboxes of an address header as mailparser read it, groups opened, those without an address left out. */
function mailboxesOf(field: AddressObject | AddressObject[] | undefined): EmailAddress[] {
  const flat = (list: EmailAddress[]): EmailAddress[] => list.flatMap((entry) => (entry.group ? flat(entry.group) : entry.address ? [entry] : []));
  return (Array.isArray(field) ? field : field ? [field] : []).flatMap((object) => flat(object.value));
}
