import type { BounceReason } from './types.js';

/**
 * What remote servers and MTAs write for each bounce reason, matched against
 * the lower-cased diagnostic text. The reasons and their split follow sisimai
 * (https://libsisimai.org/en/reason/); the phrases are the common wordings of
 * Postfix, Exim, Sendmail, qmail, Exchange/Office 365, Gmail, Yahoo and the
 * large mailbox providers. Order inside a list does not matter.
 */
type Patterns = ReadonlyArray<string | RegExp>;

const USER_UNKNOWN: Patterns = [
  'user unknown', 'unknown user', 'unknown recipient', 'recipient unknown', 'addressee unknown', 'address unknown',
  'unknown mailbox', 'unknown local part', 'unknown local-part', /unknown e-?mail address/,
  'no such user', 'no such mailbox', 'no such recipient', 'no such address', 'no such person', 'no such account',
  'user not found', 'recipient not found', 'mailbox not found', 'address not found', 'account not found',
  /\b(?:user|mailbox|recipient|address|account|addressee)(?: name)? (?:does not|doesn't|did not|not) exist/,
  /\b(?:user|mailbox|recipient|account) \S+ (?:does not|doesn't) exist/,
  /\bmailbox \S+ (?:is )?(?:not found|unavailable)/,
  'mailbox unavailable', 'mailbox is unavailable', 'mailbox not available', 'mailbox is inactive',
  'invalid mailbox', 'invalid recipient', 'invalid user', 'invalid address', 'bad recipient', 'bad destination mailbox',
  'not a valid user', 'not a valid recipient', 'not a valid mailbox', 'is not a known user', 'not a known user',
  'no mailbox here by that name', 'no mailbox by that name', 'no account by that name', 'no mail box available for this user',
  /doesn't have an? \S+ account/, /does not have an? \S+ account/,
  'recipient address rejected: access denied', 'recipient address rejected: invalid user', 'recipient address rejected: user',
  'recipient rejected', 'recipient is not local', 'not a local address', 'there is no one at this address',
  'this address no longer accepts mail', 'address does not exist', 'email account that you tried to reach does not exist',
  'resolver.adr.recipnotfound', 'resolver.adr.recipientnotfound', 'recipient name is not recognized',
  'utilisateur inconnu', 'destinataire invalide', 'nessun utente', 'no existe', 'unbekannter empf', 'existiert nicht',
  /\bnon-?existent (?:user|mailbox|recipient|address)/,
  // `<…@…> not found`, tried once per run of address characters (from its start, the run checked to end at
  // "> not found" first), so that a long run is not read again from each of its `<`.
  /(?<![^>\s])(?=[^>\s]*> not found)[^<>\s]*<[^>\s]+@[^>\s]+> not found/,
];

/** Wordings that leave no doubt the mailbox does not exist, whatever command they answered. */
const USER_UNKNOWN_CERTAIN: Patterns = [
  'resolver.adr.recipnotfound', 'resolver.adr.recipientnotfound', 'recipient name is not recognized',
  'no valid recipients', "the address couldn't be found", 'the address could not be found',
  /please check (?:if|that|whether) (?:the )?(?:e-?mail )?address is correct/,
  'requested action not taken: mailbox unavailable', 'destinataire invalide',
];

const HOST_UNKNOWN: Patterns = [
  'host unknown', 'unknown host', 'host not found', 'unknown domain', 'domain not found', 'no such domain',
  /\bdomain (?:name )?(?:does not|doesn't) exist/, 'domain must exist', 'domain is not reachable', 'domain not reachable',
  'unrouteable address', 'unroutable address', 'name or service not known', 'host or domain name not found',
  'mail domain mentioned in email address is unknown', "couldn't find any host named", 'could not find any host named',
  // Tried from the start of a host name only (not after a label and its dot), so that a long name is read
  // once rather than once from each of its labels.
  /\b(?<![a-z0-9-]|[a-z0-9-]\.)(?:[a-z0-9-]+\.)+[a-z]{2,}\.? (?:does not|doesn't) exist\b/, 'recipient address rejected: unknown domain',
];

// Sisimai's wording, as a phrase: `address .+ has been replaced by` would run `.+` to the end from every `address `.
const HAS_MOVED: Patterns = [' has been replaced by ', 'mailbox has moved', 'user has moved', 'recipient has moved', 'not our customer'];

const NOT_ACCEPT: Patterns = [
  'does not accept mail', "doesn't accept mail", 'does not receive email', "doesn't receive email", 'null mx',
  'no mx record', 'indicated no smtp service', "couldn't find a mail exchanger", 'could not find a mail exchanger',
  'name server: .: host not found', 'not accepting network messages',
];

const PATTERNS: Record<Exclude<BounceReason, 'undefined'>, Patterns> = {
  userunknown: USER_UNKNOWN,
  hostunknown: HOST_UNKNOWN,
  hasmoved: HAS_MOVED,
  notaccept: NOT_ACCEPT,
  mailboxfull: [
    'mailbox full', 'mailbox is full', 'mailbox quota', 'over quota', 'overquota', 'quota exceeded', 'exceeded quota', 'quota exceed',
    'storage quota', 'exceeded storage', 'disk quota', 'mailfolder is full', 'mail folder is full', 'inbox is full', 'account is full',
    'mailbox size limit', 'full mailbox', 'too many messages in', 'mailbox has exceeded', 'insufficient storage for the mailbox',
    /mailbox .{0,40}exceeded/, /exceeded .{0,20}(?:mailbox|storage) (?:size|limit|quota)/, 'not enough space on the disk for this user',
    'exceeded storage allocation', 'insufficient disk space', 'not enough disk space', 'not sufficient disk space', 'no space left on device', 'disk quota exceeded',
    'would exceed the allowed quota', 'would be over the allowed quota', 'user is over quota', 'too much mail data',
  ],
  mesgtoobig: [
    'message too large', 'message too big', 'message is too large', 'message is too big', 'message size exceeds',
    'size limit exceeded', 'exceeds size limit', 'exceeds the size limit', 'message exceeds maximum', 'maximum message size',
    'line limit exceeded', 'message length exceeds administrative limit', 'mail size', 'too large for this',
  ],
  exceedlimit: ['message length exceeds limit', 'exceeds the maximum number', 'exceeded the limit set by'],
  suspend: [
    'account disabled', 'account has been disabled', 'account is disabled', 'user account disabled', 'mailbox disabled',
    'mailbox has been disabled', 'mailbox is disabled', 'account that you tried to reach is disabled', 'account is locked',
    'account locked', 'temporary locked', 'temporarily locked', 'mailbox is frozen', 'account has been suspended',
    'account suspended', 'mailbox suspended', 'has been suspended', 'disabled or discontinued', 'account is inactive',
    'account has been deactivated', 'account expired', 'extended inactivity',
  ],
  norelaying: [
    'relay access denied', 'relaying denied', 'relay denied', 'relay not permitted', 'relaying not allowed', 'not configured to relay',
    'insecure mail relay', 'unable to relay', 'we do not relay', 'not permitted to relay', 'relay not allowed', 'no relaying',
  ],
  authfailure: [/\bdmarc\b/, /\bspf\b/, /\bdkim\b/, 'sender policy framework', 'sender is unauthenticated', 'not pass authentication'],
  filtered: [
    'recipient preferences', 'user reject', 'you have been blocked by the recipient', 'is not accepting any mail',
    'only accepting mail from', 'resolver.rst.notauthorized', 'message filtered', 'has restricted sms e-mail', 'refuse to receive mail',
  ],
  rejected: [
    'sender address rejected', 'domain of sender address', 'sender rejected', 'sender verify failed', 'sender verification',
    'unknown sender', 'invalid sender', 'sender not allowed', 'sender is not allowed', 'bad sender', 'sender domain',
    'from: domain is invalid', 'provide a valid from', 'envelope sender', 'all recipient addresses rejected', 'mail from',
    'may not post', 'permission to post', 'send mail as',
  ],
  blocked: [
    /\bblock(?:ed|list|listed)\b/, /\bblacklist/, /\bdnsbl\b/, /\brbl\b/, 'spamhaus', 'spamcop', 'client host rejected',
    'listed at', 'listed in', 'listed on', 'poor reputation', 'not allowed to send', 'smtp server of your isp', "weren't sent",
    'unwanted messages', 'banned', 'refused to talk to me', 'connection rejected', 'ip address is',
  ],
  spamdetected: [/\bspam\b/, /\bube\b/, 'junk mail', 'bulk email', 'bulk mail', 'message content rejected', 'content filter', 'blacklisted url', 'uribl', 'spam classification'],
  virusdetected: ['virus', 'malware', 'infected'],
  policyviolation: ['policy violation', 'protocol violation', 'header error', 'violates our policy', 'policy reasons'],
  requireptr: ['ptr record', 'reverse dns', 'rdns', 'ptr resource record', 'mismatches client ip', 'no ptr'],
  badreputation: ['unexpected volume or user complaints', 'bad reputation', 'sender reputation', 'low reputation'],
  speeding: ['receiving mail at a rate', 'too many recipients this hour', 'rate limit', 'rate-limit', 'ratelimit', 'throttl', 'sending too fast', 'too many messages from'],
  toomanyconn: ['too many connections', 'connection frequency limited', 'too many recipients', 'too many simultaneous', 'connection limit'],
  securityerror: ['authentication required', 'encryption required', 'tls required', 'must issue a starttls', 'security policies', 'unauthenticated senders', 'security policy'],
  systemerror: [
    'system error', 'internal error', 'internal system error', 'service unavailable', 'service not available', 'service currently unavailable',
    'temporary failure', 'server error', 'routing loop', 'hop count', 'too many hops', 'mail loop', 'loop detected', 'duplicated message-id',
    'ldap server', 'could not load', 'transaction failed', 'local configuration error', 'mail system problem', 'service refuse',
  ],
  systemfull: ['insufficient system storage', 'mail system full', 'system storage'],
  networkerror: [
    'connection timed out', 'timed out', /(?<!retry )timeout/, 'no route to host', 'connection refused', 'lost connection', 'network error',
    'could not connect', 'unable to connect', 'name service error', 'dns error', 'dns query failed', 'socket error',
    'did not accept our requests to connect', 'establish an smtp connection', 'host is unreachable', 'network is unreachable',
  ],
  expired: [
    'expired', 'retry timeout exceeded', 'queue too long', 'delivery time expired', 'has been failing for a long time',
    'could not be delivered for more than', 'gave up', 'delayed', 'will be retried', 'still being retried', 'retry time',
  ],
  contenterror: ['media error', '8-bit data', '8bit data', 'improper use of 8-bit', 'content error', 'invalid mime', 'mime error'],
  mailererror: ['mailer error', 'command died', 'procmail', 'pipe to |', 'exit status', 'unknown mailer error', 'command output'],
  syntaxerror: ['syntax error', 'command unrecognized', 'unrecognized command', 'improper sequence', 'bad sequence', 'command parameter not implemented', 'not implemented', 'malformed address'],
};

function hit(patterns: Patterns, text: string): boolean {
  return patterns.some((p) => (typeof p === 'string' ? text.includes(p) : p.test(text)));
}

/** Whether the lower-cased text reads like this reason. */
export function matches(reason: Exclude<BounceReason, 'undefined'>, text: string): boolean {
  return hit(PATTERNS[reason], text);
}

/** Whether the lower-cased text says, beyond doubt, that the mailbox does not exist. */
export function certainlyUnknownUser(text: string): boolean {
  return hit(USER_UNKNOWN_CERTAIN, text);
}
