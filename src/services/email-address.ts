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

export type MailboxProblem = 'control-characters' | 'invalid';

// `Display Name <address>` with the name bare or double-quoted. Deliberately
// strict: a lenient parser turns a typo such as `a b@c.com` into a different
// recipient instead of an error. A bare name may not hold RFC 5322 specials
// (`,` `;` `:` `@` and the like), so `x@bank.example, Acme <a@b.com>` cannot
// slip a second address into a header; such names must be quoted.
const NAME_ADDR = /^(?:"((?:[^"\\]|\\.)*)"|([^"<>()[\]:;@\\,]*?))\s*<([^<>\s]+)>$/;

/** Parses `address` or `Display Name <address>`: exactly one mailbox. */
export function parseMailbox(input: string): Mailbox | MailboxProblem {
  if (hasControlCharacters(input)) return 'control-characters';
  const trimmed = input.trim();
  const match = NAME_ADDR.exec(trimmed);
  const mailbox: Mailbox = match
    ? { name: match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2]!.trim(), address: match[3]! }
    : { name: '', address: trimmed };
  return isValidAddress(mailbox.address) ? mailbox : 'invalid';
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
