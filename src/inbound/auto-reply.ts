import type { MimeMessage } from './mime-message.js';

/**
 * RFC 3834 automatic responses: vacation notices, out-of-office replies,
 * autoresponders. Not bounces: the mailbox exists and took the message.
 * Asked only once a message has shown itself to be no bounce (bounces carry
 * `Auto-Submitted: auto-replied` too).
 */

const AUTO_SUBJECT = new RegExp(
  [
    '^\\s*(?:\\[?auto(?:matic)?[ -]?(?:reply|response|responder|antwort|risposta|respuesta|réponse|reponse)\\]?)',
    '^\\s*auto:',
    '^\\s*autoreply\\b',
    '\\bout of (?:the )?office\\b',
    '\\bout-of-office\\b',
    '\\bon vacation\\b',
    '\\bvacation (?:reply|notice|message|auto)',
    '\\babwesenheits(?:notiz|meldung)',
    '\\bnicht im büro\\b',
    '\\bréponse automatique\\b',
    '\\brespuesta automática\\b',
    '\\brisposta automatica\\b',
    '\\bfuori sede\\b',
    '自動応答',
    '不在',
    '\\baway from (?:my|the) (?:desk|office|e-?mail)\\b',
  ].join('|'),
  'i',
);

const AUTO_BODY =
  /\b(?:i am|i'm|i will be|i'll be) (?:currently )?(?:out of (?:the )?office|away|on (?:vacation|holiday|leave|annual leave|parental leave)|traveling|travelling|out of town)\b|\bautomatic(?:ally generated)? (?:reply|response)\b|\bthis is an auto(?:mated|matic)?[- ]?(?:reply|response)\b|\blimited access to (?:my )?e-?mail\b/i;

export interface AutoReplyVerdict {
  /** The header or subject that tells, as written. */
  evidence: string;
}

/** Whether the message is an automatic reply, and what says so; null for a message written by a person. */
export function detectAutoReply(message: MimeMessage): AutoReplyVerdict | null {
  const autoSubmitted = message.header('auto-submitted')?.toLowerCase().split(/[;\s]/)[0] ?? null;
  const precedence = (message.header('precedence') ?? message.header('x-precedence'))?.toLowerCase().trim() ?? null;
  const subjectSays = AUTO_SUBJECT.test(message.subject);
  const bodySays = AUTO_BODY.test(message.text.slice(0, 4000));

  if (autoSubmitted === 'auto-replied') return { evidence: `Auto-Submitted: ${message.header('auto-submitted')}` };
  for (const name of ['x-autoreply', 'x-autorespond', 'x-autoresponder', 'x-autoreply-from', 'x-mail-autoreply']) {
    const value = message.header(name);
    if (value !== null && !/^(?:no|false|0)$/i.test(value.trim())) return { evidence: `${headerName(name)}: ${value}` };
  }
  if (precedence === 'auto_reply' || precedence === 'auto-reply') return { evidence: `Precedence: ${precedence}` };
  if (subjectSays) return { evidence: `Subject: ${message.subject}` };
  // Generated (not replied) messages, and replies Exchange marks as not to be auto-answered, count only with wording that says so.
  const automated = (autoSubmitted !== null && autoSubmitted !== 'no') || message.header('x-auto-response-suppress') !== null;
  if (automated && bodySays) return { evidence: autoSubmitted ? `Auto-Submitted: ${message.header('auto-submitted')}` : 'X-Auto-Response-Suppress' };
  return null;
}

function headerName(lower: string): string {
  return lower.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
}
