import { storableText } from '../lib/external-text.js';
import type { ProviderProblem, RecipientOutcome } from './provider.js';

/** What the AWS SDK's errors carry: the error type as `name`, the HTTP status in `$metadata`, `$fault` client or server. */
export interface SesError extends Error {
  $fault?: 'client' | 'server';
  $metadata?: { httpStatusCode?: number };
  code?: string;
}

/** Refusals of Mailroom's credentials: the key is unknown, the signature wrong, the identity not allowed, or no credentials at all. */
export const CREDENTIAL_REFUSALS = new Set([
  'UnrecognizedClientException', 'InvalidClientTokenId', 'SignatureDoesNotMatch', 'InvalidSignatureException',
  'AccessDeniedException', 'ExpiredTokenException', 'MissingAuthenticationTokenException', 'CredentialsProviderError',
]);

/**
 * SES's refusals of Mailroom itself, never of the recipient: the recipient `failed`, never bounced or
 * suppressed, and no retry helps. Each says what to check; docs/ses.md's error table is this table.
 */
const REFUSALS: Record<string, { kind: ProviderProblem['kind']; what: string }> = {
  MessageRejected: { kind: 'sender', what: 'refused the message (check that the sender is a verified identity in this region, and in the SES sandbox the recipient too)' },
  MailFromDomainNotVerifiedException: { kind: 'sender', what: "refused the sender's custom MAIL FROM domain (check its MX and SPF records in SES)" },
  AccountSuspendedException: { kind: 'account', what: "has suspended the account's sending (see the SES console's account dashboard)" },
  SendingPausedException: { kind: 'account', what: 'has sending paused for the account or the configuration set (SES_CONFIGURATION_SET)' },
  NotFoundException: { kind: 'configuration', what: 'does not know a resource the send names (check SES_CONFIGURATION_SET)' },
};

const CREDENTIALS_WHAT =
  "refused Mailroom's credentials (check the AWS credentials the worker finds: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, the instance or task role, and their IAM policy)";

/** The error's type, as SES names it (the SDK's `name`, from `x-amzn-ErrorType`). */
const typeOf = (error: SesError) => error.name || 'Error';

/** Network failures below HTTP: Node's error codes, and the SDK's own timeout. */
function isTimeout(error: SesError): boolean {
  return error.name === 'TimeoutError' || error.code === 'ETIMEDOUT' || /time(d)? ?out/i.test(error.message);
}

/** Whether an error of SendEmail or GetAccount is SES refusing Mailroom's credentials. */
export function refusesCredentials(error: unknown): boolean {
  return CREDENTIAL_REFUSALS.has(typeOf(error as SesError));
}

/**
 * One recipient's outcome of a SendEmail that threw, as the table says: credentials refused and
 * SES's refusals of Mailroom `failed` (with SES's message quoted); throttling, SES's 5xx and
 * network trouble `temporary` (retried with backoff); any other refusal of the request `failed`.
 */
export function sesOutcome(recipient: string, caught: unknown, host: string): RecipientOutcome {
  const error = caught as SesError;
  const type = typeOf(error);
  const status = error.$metadata?.httpStatusCode;
  const message = storableText((error.message || type).trim());
  const quoted = JSON.stringify(message);
  const problem = (kind: ProviderProblem['kind']): ProviderProblem => ({ kind, host, reply: `${type}: ${message}` });
  const failed = (kind: ProviderProblem['kind'], what: string): RecipientOutcome => ({
    recipient, kind: 'failed', detail: `Amazon SES (${host}) ${what}: ${type}: ${quoted}`, problem: problem(kind),
  });

  if (CREDENTIAL_REFUSALS.has(type)) return failed('auth', CREDENTIALS_WHAT);
  const refusal = REFUSALS[type];
  if (refusal) return failed(refusal.kind, refusal.what);
  if (status === 429 || type === 'TooManyRequestsException' || type === 'ThrottlingException') {
    return { recipient, kind: 'temporary', detail: `Amazon SES is throttling: ${type}: ${quoted}`, problem: problem('throttling') };
  }
  if ((status !== undefined && status >= 500) || error.$fault === 'server') {
    return { recipient, kind: 'temporary', detail: `Amazon SES answered ${status ?? 'a server error'}: ${type}: ${quoted}`, problem: problem('service') };
  }
  if (status === undefined) {
    const kind = isTimeout(error) ? 'timeout' : 'connection';
    return { recipient, kind: 'temporary', detail: `Could not reach Amazon SES at ${host}: ${message}`, problem: problem(kind) };
  }
  return failed('request', `refused Mailroom's request (${status})`);
}
