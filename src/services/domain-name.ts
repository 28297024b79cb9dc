import { domainToASCII } from 'node:url';
import { ValidationError } from '../errors.js';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const MAX_DOMAIN_LENGTH = 253;

/** Lower-cases, drops a trailing dot, converts IDNs to their ASCII form, and checks hostname syntax. */
export function normalizeDomainName(input: string): string {
  const candidate = input.trim().toLowerCase().replace(/\.$/, '');
  const ascii = candidate === '' ? '' : domainToASCII(candidate);
  const labels = ascii.split('.');
  const valid =
    ascii !== '' &&
    ascii.length <= MAX_DOMAIN_LENGTH &&
    labels.length >= 2 &&
    labels.every((label) => LABEL.test(label)) &&
    !/^\d+$/.test(labels[labels.length - 1]!);
  if (!valid) throw new ValidationError(`domain must be a valid domain name such as example.com (got ${JSON.stringify(input)})`);
  return ascii;
}
