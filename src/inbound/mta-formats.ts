import type { MimeMessage } from './mime-message.js';

/**
 * What the non-standard (plain-text) bounces of the common MTAs and mailbox
 * providers have in common, as recognisable wordings: how they introduce the
 * list of failed recipients, where the copy of the returned message starts,
 * and how a bounce tells itself apart from ordinary mail. The reading itself
 * is in `text-bounce.ts`.
 *
 * Families covered by these wordings: Postfix ("This is the mail system at
 * host…"), Exim ("This message was created automatically by mail delivery
 * software"), Sendmail ("----- The following addresses had permanent fatal
 * errors -----", "Transcript of session follows"), qmail and its descendants
 * ("Hi. This is the qmail-send program", "--- Below this line is a copy of
 * the message."), Microsoft Exchange 2003–2019 and Office 365 ("did not reach
 * the following recipient(s)", "Delivery has failed to these recipients or
 * groups", "Remote Server returned '…'"), Gmail ("Delivery to the following
 * recipient failed permanently", "** Address not found **"), Yahoo ("Sorry,
 * we were unable to deliver your message to the following address."),
 * OpenSMTPD, DragonFly dma, Courier, Lotus Domino, MailMarshal, InterScan,
 * IMail, Zoho, GMX/1&1, Mail.ru, m-FILTER and the Japanese mobile carriers.
 */

/**
 * Lines at which the copy of the returned message (or of its headers) starts. The leading `[ \t-]*` is
 * taken whole (a lookahead and its back reference): given back a character at a time, as the words after
 * it never begin with one of its characters, it would be read again for each marker on a long rule of dashes.
 */
const RETURNED_MESSAGE_MARKERS: RegExp[] = [
  /^(?=([ \t-]*))\1below this line is a copy of the message/im,
  /^(?=([ \t-]*))\1this is a copy of (?:the|your) message/im,
  /^(?=([ \t-]*))\1original message (?:follows|headers)\b/im,
  // `[ \t-]*-+ ?original…`: the rule taken whole, then its end seen to be a dash and at most one space.
  /^(?=([ \t-]*))\1(?<=-|- )original (?:message|mail)(?: info)? ?-*[ \t]*$/im,
  /^(?=([ \t-]*))\1original (?:message|mail)(?: as follows)?[ \t]*:[ \t]*$/im,
  /^(?=([ \t-]*))\1unsent message follows/im,
  /^(?=([ \t-]*))\1the header of the original message is following/im,
  /^(?=([ \t-]*))\1included is a copy of the message header/im,
  /^(?=([ \t-]*))\1message headers follow/im,
  /^(?=([ \t-]*))\1below is a copy of the original message/im,
  /^(?=([ \t-]*))\1the original message (?:headers )?(?:was|is|are) (?:attached|included|as follows)/im,
  /^(?=([ \t-]*))\1(?<=-|- )(?:returned|undelivered|original) message(?: headers?)? ?-*[ \t]*$/im,
  /^Content-Type:[ \t]*(?:message\/rfc822|text\/rfc822-headers)/im,
];

/** The last text reportSection read, and its section: each reader asks for the same message's. */
let lastRead: { text: string; section: string } | undefined;

/** The part of a bounce's text before the copy of the returned message. */
export function reportSection(text: string): string {
  if (lastRead?.text === text) return lastRead.section;
  let end = text.length;
  for (const marker of RETURNED_MESSAGE_MARKERS) {
    const match = marker.exec(text);
    if (match && match.index < end && match.index > 0) end = match.index;
  }
  lastRead = { text, section: text.slice(0, end) };
  return lastRead.section;
}

/** The text after the report section: the returned message or its headers, if copied inline. */
export function returnedSection(text: string): string {
  return text.slice(reportSection(text).length);
}

/** Wordings that introduce the list of recipients a report is about. */
export const RECIPIENT_LIST_INTRO = new RegExp(
  [
    'following (?:list of )?(?:addresses|address|recipients?|destinations?)',
    'address(?:\\(es\\)|es)? failed',
    'failed to these recipients',
    'could not be (?:delivered|reached)',
    "couldn't be delivered",
    'unable to deliver',
    'undeliverable to',
    'did not reach',
    "wasn't delivered to",
    'not delivered to',
    'had (?:permanent )?(?:fatal )?(?:errors|delivery (?:problems|errors))',
    'returned permanent errors',
    'recipients were affected',
    'error delivering',
    'transcript of session follows',
    'delivery to the following',
    'could not deliver',
    'recipients? (?:failed|was rejected|were rejected)',
    'cannot be delivered',
    'delivery has failed',
    '送信に失敗',
  ].join('|'),
  'i',
);

/**
 * Subjects bounces carry. The non-ASCII ones, escaped here (the bundle stays ASCII: scripts/bundle-server.ts):
 * не доставлено, エラー.
 */
const BOUNCE_SUBJECT =
  /undeliver|undelivered|returned mail|returning message|delivery status notification|delivery (?:status )?(?:notification|failure|failed|problem)|failure notice|failure delivery|mail delivery (?:failed|failure|system|subsystem)|delivery has failed|could not be delivered|mail system error|message (?:delivery has failed|not delivered)|non remis|non recapitabile|nicht zustellbar|unzustellbar|non distribuable|no entregado|delayed mail|warning: could not send|loop (?:alert|detected)|mail failure|delivery notification|\u043D\u0435 \u0434\u043E\u0441\u0442\u0430\u0432\u043B\u0435\u043D\u043E|\u30A8\u30E9\u30FC|returned to sender/i;

/** Senders bounces come from. */
const BOUNCE_SENDER = /^(?:mailer[-_.]?daemon|post[-_.]?master|mail[-_.]delivery[-_.]s(?:ystem|ubsystem)|mdaemon|bounces?|ndr|noreply-dsn)(?:[+@]|$)/i;
const BOUNCE_SENDER_NAME = /mailer[- ]?daemon|postmaster|mail delivery (?:system|subsystem)|ndr administrator|delivery status notification/i;

/**
 * What the text of a bounce says. The non-ASCII ones, escaped as above: 送信に失敗, 送信できませんでした,
 * 配信できませんでした, не может быть доставлено, не доставлено, non è stato recapitato, n'a pas pu être (remis|distribué).
 */
const BOUNCE_BODY =
  /could not be delivered|couldn't be delivered|cannot be delivered|can't be delivered|was not delivered|wasn't delivered|undeliverable|unable to deliver|not able to deliver|wasn't able to deliver|delivery (?:has )?failed|failed permanently|permanent (?:fatal )?error|did not reach the following|delivery to the following recipient|returned to sender|message delivery has failed|delivery status notification|could not deliver|error delivering|has been delayed|still being retried|delivery failure|duplicated message-id|mail loop|loop detected|\u9001\u4FE1\u306B\u5931\u6557|\u9001\u4FE1\u3067\u304D\u307E\u305B\u3093\u3067\u3057\u305F|\u914D\u4FE1\u3067\u304D\u307E\u305B\u3093\u3067\u3057\u305F|\u043D\u0435 \u043C\u043E\u0436\u0435\u0442 \u0431\u044B\u0442\u044C \u0434\u043E\u0441\u0442\u0430\u0432\u043B\u0435\u043D\u043E|\u043D\u0435 \u0434\u043E\u0441\u0442\u0430\u0432\u043B\u0435\u043D\u043E|nicht zugestellt werden|non \u00E8 stato recapitato|no se pudo entregar|n'a pas pu \u00EAtre (?:remis|distribu\u00E9)/i;

/** Signs that a report is a warning about a delay, not a final failure. */
export const DELAY_WARNING =
  /this is a warning message only|warning only|you do not need to resend|will be retried|still being retried|has been delayed|is delayed|delivery delayed|temporary failure report|will keep trying|will continue trying|\(delay\)/i;

export interface BounceSignals {
  /** From a mailer daemon or postmaster. */
  sender: boolean;
  /** A bounce's subject. */
  subject: boolean;
  /** A bounce's wording in the text. */
  body: boolean;
}

/** A reply or a forward ("Re:", "Fwd:", "AW:"…): its subject quotes another's. */
const REPLY_SUBJECT = /^\s*(?:re|fwd?|aw|sv|vs|wg|tr|rif|antw)\s*(?:\[\d+\]\s*)?:/i;

export function bounceSignals(message: MimeMessage, report: string): BounceSignals {
  // Mail distributed by a list, or a person's reply about bounces, is not a bounce however it reads.
  const listMail = message.header('list-id') !== null || /^(?:list|bulk)$/i.test(message.header('precedence')?.trim() ?? '');
  const address = message.fromAddress ?? '';
  const sender = BOUNCE_SENDER.test(address) || BOUNCE_SENDER_NAME.test(message.fromName);
  return {
    sender,
    subject: !listMail && BOUNCE_SUBJECT.test(message.subject) && (sender || !REPLY_SUBJECT.test(message.subject)),
    body: !(listMail && !sender) && BOUNCE_BODY.test(report),
  };
}

/** Lines that carry a remote server's or MTA's error, wherever they sit in the report. */
export const ERROR_LINE =
  /^\s*(?:<<<\s*)?[45]\d\d[ -]|[:\]]\s*[45]\d\d[ -]|\bsaid:\s*[45]\d\d\b|\breturned '[45]\d\d|\b(?:error|reason|diagnostic[- ]code)\s*:|\bserver message\b|\bfor the following reason\b|\bremote host said\b/i;
