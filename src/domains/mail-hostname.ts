import { isPublicHostName } from '../lib/domain-name.js';

/**
 * What is wrong with MAILROOM_HOSTNAME for the records Mailroom suggests (the
 * return path's MX and the SPF `a:` both name it), or null when it is a fully
 * qualified public name. Said in the log at start and on the Domains page.
 */
export function mailHostnameProblem(mailHostname: string): string | null {
  if (isPublicHostName(mailHostname)) return null;
  return `MAILROOM_HOSTNAME is ${JSON.stringify(mailHostname)}, not a fully qualified domain name: the DNS records Mailroom suggests (return-path MX, SPF) will be wrong; set MAILROOM_HOSTNAME to this machine's public name, e.g. mail.example.com`;
}
