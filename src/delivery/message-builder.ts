import { createPrivateKey } from 'node:crypto';
import nodemailer, { type Transporter } from 'nodemailer';
import type { DomainsTable, MessageAttachmentsTable, MessagesTable } from '../db/schema.js';
import type { Mailbox } from '../lib/email-address.js';
import { ccOf, replyToOf } from '../lib/message-recipients.js';
import { textFromHtml } from '../lib/text-from-html.js';
import { trackedHtmlFor, type MessageTracking } from '../tracking/index.js';

/** What the sender's domain contributes: its name, the return-path host, and the DKIM key that signs for it. */
export type SigningDomain = Pick<DomainsTable, 'domain' | 'return_path_domain' | 'dkim_selector' | 'dkim_private_key'>;

/**
 * One SMTP transaction: a recipient and the envelope sender signed for it
 * (inbound/return-path.ts). Both name their domain in A-labels, as acceptance
 * stored the recipient and as return-path domains are kept; the recipient is
 * also the key its outcome comes back under, so it is not rewritten here.
 */
export interface Envelope {
  from: string;
  to: string;
  /** The recipient's place among the message's recipients: what its tracked addresses name. */
  recipientIndex?: number;
  /** This recipient's own copy of a tracked message (its tracked addresses are its own); else the message's `raw`. */
  raw?: Buffer;
}

export interface BuiltMessage {
  /** The API's `message_id`, also the DSN envelope id (ENVID). */
  messageId: string;
  workspaceId: string;
  /**
   * One envelope per recipient handed over now: each recipient's return path
   * is its own, so a report that comes back may speak for that recipient
   * alone, and each is a transaction of its own.
   */
  envelopes: Envelope[];
  /** The `Message-ID` header's value, `<msg_…@sender-domain>`. */
  messageIdHeader: string;
  /** The `From` header's address: what an upstream that checks the sender's identity (SES) is told. */
  fromAddress: string;
  /** The whole RFC 5322 message, DKIM-signed: every envelope's, or the first one's when each has its own (rawFor). */
  raw: Buffer;
}

const formatMailbox = (m: Mailbox) => (m.name ? { name: m.name, address: m.address } : m.address);

/** Composers kept for this many signing keys at most (the oldest is dropped first). */
const COMPOSER_CACHE_SIZE = 256;
const composers = new Map<string, Transporter>();

/**
 * The composer that signs for `domain`, made once per key: the parsed key is
 * kept with it, since parsing the PEM costs more than twice the RSA signature
 * itself (0.5 ms against 0.2 ms here) and would otherwise be paid per message.
 */
function composerFor(domain: SigningDomain): Transporter {
  const cacheKey = `${domain.domain}\0${domain.dkim_selector}\0${domain.dkim_private_key}`;
  let composer = composers.get(cacheKey);
  if (!composer) {
    composer = nodemailer.createTransport({
      streamTransport: true,
      buffer: true,
      newline: 'windows',
      dkim: { domainName: domain.domain, keySelector: domain.dkim_selector, privateKey: createPrivateKey(domain.dkim_private_key) as never },
    });
    if (composers.size >= COMPOSER_CACHE_SIZE) composers.delete(composers.keys().next().value!);
    composers.set(cacheKey, composer);
  }
  return composer;
}

/**
 * Composes one MIME message per send with Nodemailer (headers encoded as
 * needed, text and/or HTML parts) and signs it with the domain's DKIM key
 * (rsa-sha256, relaxed/relaxed). Headers come from the parsed mailboxes stored
 * at acceptance, never from raw input. `To` and `Cc` name their recipients of
 * the send; Bcc recipients appear in no header, only in their own envelope.
 * The envelopes hold only those handed over now: those suppressed, or already
 * done before a retry, are not sent to again. A tracked message is built once
 * per envelope, each with its recipient's tracked HTML, and signed after the
 * rewrite; its text part keeps the original links (docs/tracking.md).
 */
export async function buildMessage(
  message: MessagesTable,
  domain: SigningDomain,
  envelopes: Envelope[],
  attachments: Pick<MessageAttachmentsTable, 'filename' | 'content_type' | 'content_id' | 'content'>[] = [],
  date: Date = new Date(),
  tracking?: MessageTracking,
): Promise<BuiltMessage> {
  const recipients = JSON.parse(message.recipients) as Mailbox[];
  const cc = ccOf(message);
  const replyTo = replyToOf(message);
  // '' is the sender's opt-out from the generated text part (send-request.ts); null with HTML gets one, made
  // here on the builder's thread rather than at acceptance: html-to-text costs CPU the request path should not pay.
  const text = message.text === null ? (message.html !== null ? textFromHtml(message.html) : null) : message.text || null;
  const headers = message.headers ? (JSON.parse(message.headers) as [string, string][]).map(([key, value]) => ({ key, value })) : [];
  const messageIdHeader = `<${message.id}@${domain.domain}>`;
  const composer = composerFor(domain);
  const compose = async (html: string | null): Promise<Buffer> => {
    const info = await composer.sendMail({
      // The envelope does not go into the message; Nodemailer wants one all the same.
      envelope: { from: envelopes[0]?.from ?? '', to: envelopes.map((e) => e.to) },
      from: formatMailbox({ name: message.from_name, address: message.from_address }),
      to: recipients.map(formatMailbox),
      ...(cc.length > 0 ? { cc: cc.map(formatMailbox) } : {}),
      ...(replyTo.length > 0 ? { replyTo: replyTo.map(formatMailbox) } : {}),
      subject: message.subject,
      ...(headers.length > 0 ? { headers } : {}),
      ...(text !== null ? { text } : {}),
      ...(html !== null ? { html } : {}),
      // With a Content-ID an attachment is inline: Nodemailer puts it beside the HTML in multipart/related.
      ...(attachments.length > 0
        ? {
            attachments: attachments.map((a) => ({
              filename: a.filename,
              content: a.content,
              contentType: a.content_type,
              ...(a.content_id !== null ? { cid: a.content_id, contentDisposition: 'inline' as const } : {}),
            })),
          }
        : {}),
      messageId: messageIdHeader,
      date,
    });
    return info.message as Buffer;
  };
  const built = { messageId: message.id, workspaceId: message.workspace_id, messageIdHeader, fromAddress: message.from_address };
  if (!tracking || message.html === null || (!tracking.opens && !tracking.clicks)) return { ...built, envelopes, raw: await compose(message.html) };
  const copies: Envelope[] = [];
  for (const envelope of envelopes) {
    if (envelope.recipientIndex === undefined) throw new Error(`The envelope of ${envelope.to} names no place among the recipients to track`);
    copies.push({ ...envelope, raw: await compose(trackedHtmlFor(message, envelope.recipientIndex, tracking)) });
  }
  return { ...built, envelopes: copies, raw: copies[0]?.raw ?? (await compose(message.html)) };
}
