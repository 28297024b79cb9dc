import { domainToASCII } from 'node:url';

export interface Mailbox {
  name: string;
  address: string;
}

// The WHATWG HTML "valid e-mail address" grammar, plus a dot in the domain:
// the pragmatic syntax every mainstream sending API accepts.
const ADDRESS =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;
const MAX_ADDRESS_LENGTH = 254;
const MAX_LOCAL_PART_LENGTH = 64;
// CR and LF would let a caller add headers; other control characters have no place in a header either.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

export function isValidAddress(address: string): boolean {
  if (address.length > MAX_ADDRESS_LENGTH || !ADDRESS.test(address)) return false;
  return address.indexOf('@') <= MAX_LOCAL_PART_LENGTH;
}

export function hasControlCharacters(value: string): boolean {
  return CONTROL_CHARACTERS.test(value);
}

export type MailboxProblem = 'control-characters' | 'invalid' | 'non-ascii-local-part';

export interface MailboxOptions {
  /** Whether a non-ASCII local part (RFC 6531, SMTPUTF8) may be accepted: only when the provider can deliver it. */
  utf8LocalPart?: boolean;
}

const NON_ASCII = /[^\u0000-\u007f]/;
// The WHATWG local part again, with any non-ASCII character allowed besides (RFC 6532's UTF8-non-ascii).
const UTF8_LOCAL_PART = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~\u0080-\u{10ffff}-]+$/u;

/** Whether the part before the `@` holds a non-ASCII character: such an address needs SMTPUTF8 (RFC 6531) on every hop. */
export function hasNonAsciiLocalPart(address: string): boolean {
  return NON_ASCII.test(address.slice(0, Math.max(address.lastIndexOf('@'), 0)));
}

/**
 * The address with its domain in A-labels (punycode, IDNA), the form any
 * relay or API routes; one whose domain has no ASCII form is left as given,
 * for the upstream to refuse in its own words.
 */
export function withAsciiDomain(address: string): string {
  const at = address.lastIndexOf('@');
  const domain = address.slice(at + 1);
  if (at < 0 || !NON_ASCII.test(domain)) return address;
  const ascii = domainToASCII(domain);
  return ascii === '' ? address : `${address.slice(0, at)}@${ascii}`;
}

/**
 * The address as it goes on the wire: an internationalised domain in its
 * ASCII (punycode, IDNA) form, so any relay can route it; null when invalid.
 * A non-ASCII local part has no ASCII form: it needs SMTPUTF8 end to end.
 */
function wireAddress(address: string, options: MailboxOptions): string | MailboxProblem {
  const at = address.lastIndexOf('@');
  if (at <= 0) return 'invalid';
  const local = address.slice(0, at);
  let domain = address.slice(at + 1);
  if (NON_ASCII.test(domain)) {
    domain = domainToASCII(domain);
    if (domain === '') return 'invalid';
  }
  if (!NON_ASCII.test(local)) {
    const ascii = `${local}@${domain}`;
    return isValidAddress(ascii) ? ascii : 'invalid';
  }
  if (!UTF8_LOCAL_PART.test(local) || Buffer.byteLength(local) > MAX_LOCAL_PART_LENGTH || !isValidAddress(`x@${domain}`)) return 'invalid';
  return options.utf8LocalPart ? `${local}@${domain}` : 'non-ascii-local-part';
}

// `Display Name <address>` with the name bare or double-quoted. Deliberately
// strict: a lenient parser turns a typo such as `a b@c.com` into a different
// recipient instead of an error. A bare name may not hold RFC 5322 specials
// (`,` `;` `:` `@` and the like), so `x@bank.example, Acme <a@b.com>` cannot
// slip a second address into a header; such names must be quoted.
// A bare name runs up to the `<` and is trimmed after: a lazy name followed by `\s*` would backtrack
// quadratically over a long space.
const NAME_ADDR = /^(?:"((?:[^"\\]|\\.)*)"\s*|([^"<>()[\]:;@\\,]*))<([^<>\s]+)>$/;

/** Parses `address` or `Display Name <address>`: exactly one mailbox. */
export function parseMailbox(input: string, options: MailboxOptions = {}): Mailbox | MailboxProblem {
  if (hasControlCharacters(input)) return 'control-characters';
  const trimmed = input.trim();
  const match = NAME_ADDR.exec(trimmed);
  const mailbox: Mailbox = match
    ? { name: match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2]!.trim(), address: match[3]! }
    : { name: '', address: trimmed };
  const address = wireAddress(mailbox.address, options);
  return address === 'invalid' || address === 'non-ascii-local-part' || address === 'control-characters' ? address : { ...mailbox, address };
}

export function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}

/** Suppression and de-duplication compare addresses case-insensitively, as receivers do in practice. */
export function normalizeAddress(address: string): string {
  return address.toLowerCase();
}

/** A display name that may stand bare before `<address>`: no RFC 5322 specials or quotes. */
const BARE_NAME = /^[^"<>()[\]:;@\\,.]*$/;

/** A mailbox as a person writes it: `address`, `Name <address>`, or `"Name, with specials" <address>`. */
export function formatMailbox({ name, address }: Mailbox): string {
  if (!name) return address;
  return BARE_NAME.test(name) ? `${name} <${address}>` : `"${name.replace(/(["\\])/g, '\\$1')}" <${address}>`;
}
