import { domainToASCII } from 'node:url';
import { ValidationError } from './errors.js';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const MAX_DOMAIN_LENGTH = 253;

/** Lower-cases, drops a trailing dot, converts IDNs to their ASCII form, and checks hostname syntax; a refusal names `field`, with `example`. */
export function normalizeDomainName(input: string, { field, example } = { field: 'domain', example: 'example.com' }): string {
  const candidate = input.trim().toLowerCase().replace(/\.$/, '');
  const ascii = candidate === '' ? '' : domainToASCII(candidate);
  const labels = ascii.split('.');
  const valid =
    ascii !== '' &&
    ascii.length <= MAX_DOMAIN_LENGTH &&
    labels.length >= 2 &&
    labels.every((label) => LABEL.test(label)) &&
    !/^\d+$/.test(labels[labels.length - 1]!);
  if (!valid) throw new ValidationError(`${field} must be a valid domain name such as ${example} (got ${JSON.stringify(input)})`);
  return ascii;
}

/** Names that never resolve in public DNS (RFC 6761, 6762, 8375 and common private suffixes). */
const PRIVATE_SUFFIXES = ['localhost', 'localdomain', 'local', 'internal', 'lan', 'home.arpa', 'invalid'];

/**
 * Whether a host name is a fully qualified name in public DNS, as the MX and
 * SPF records Mailroom suggests need (`mail.example.com`; not `vm`, an IP
 * address, or `box.local`).
 */
export function isPublicHostName(name: string): boolean {
  let ascii: string;
  try {
    ascii = normalizeDomainName(name);
  } catch {
    return false;
  }
  return !PRIVATE_SUFFIXES.some((suffix) => ascii === suffix || ascii.endsWith(`.${suffix}`));
}
