import type { ConnectionOptions } from 'node:tls';
import nodemailer from 'nodemailer';
import type { BuiltMessage, Envelope } from './message-builder.js';
import type { Provider, RecipientOutcome } from './provider.js';

/** Connections kept open to the relay; messages beyond these wait for one. */
export const SMTP_POOL_SIZE = 5;
/** Bounds on each step of talking to the relay: a silent relay is a temporary failure, not a hang. */
export const SMTP_CONNECTION_TIMEOUT_MS = 10_000;
export const SMTP_GREETING_TIMEOUT_MS = 10_000;
export const SMTP_SOCKET_TIMEOUT_MS = 60_000;

interface SmtpError extends Error {
  code?: string;
  command?: string;
  responseCode?: number;
  response?: string;
  recipient?: string;
  rejectedErrors?: SmtpError[];
}

/** Replies that mean the relay will not take mail from us as configured: authentication required or refused (RFC 4954). */
const AUTH_REPLY_CODES = new Set([530, 534, 535, 538]);

function outcomeOf(recipient: string, error: SmtpError): RecipientOutcome {
  const code = error.responseCode;
  const reply = error.response ?? error.message;
  // Our side is wrong (credentials, or a sender the relay will not relay for): the recipient is not at fault, and retrying is pointless.
  if (error.code === 'EAUTH' || error.code === 'ENOAUTH' || (code !== undefined && AUTH_REPLY_CODES.has(code))) {
    return { recipient, kind: 'failed', detail: `The SMTP relay refused Mailroom's credentials (check SMTP_URL): ${reply}` };
  }
  if (code !== undefined && code >= 500 && error.command?.startsWith('MAIL FROM')) {
    return { recipient, kind: 'failed', detail: `The SMTP relay refused the sender (check SMTP_URL and the relay's settings): ${reply}` };
  }
  // A 5xx reply to RCPT or DATA is the relay's final word on this recipient; anything else (4xx, no reply at all) may pass.
  return { recipient, kind: code !== undefined && code >= 500 ? 'permanent' : 'temporary', detail: reply };
}

/**
 * Relays through SMTP_URL (`smtp://user:pass@host:587`, or `smtps://` for TLS
 * from the start) with a pooled Nodemailer transport, one transaction per
 * recipient (each with its own signed return path). STARTTLS is used when
 * the relay offers it; AUTH comes from the URL. Each message asks for DSNs
 * (NOTIFY=SUCCESS,FAILURE,DELAY, ENVID = the message id, RET=HDRS), so a relay
 * that supports them reports bounces, and success ("relayed" from a relay like
 * Postfix, "delivered" from the last DSN-aware hop), to the return path.
 */
export function createSmtpProvider(smtpUrl: string, options: { tls?: ConnectionOptions } = {}): Provider {
  const url = new URL(smtpUrl);
  const transport = nodemailer.createTransport({
    pool: true,
    maxConnections: SMTP_POOL_SIZE,
    host: url.hostname,
    port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587,
    secure: url.protocol === 'smtps:',
    ...(url.username ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } } : {}),
    connectionTimeout: SMTP_CONNECTION_TIMEOUT_MS,
    greetingTimeout: SMTP_GREETING_TIMEOUT_MS,
    socketTimeout: SMTP_SOCKET_TIMEOUT_MS,
    // Certificates are checked against the system's CAs; `tls` adds to that (a private CA, for one).
    ...(options.tls ? { tls: options.tls } : {}),
  });

  /** One recipient, in a transaction of its own: its envelope sender is signed for it alone. */
  async function sendOne(message: BuiltMessage, { from, to }: Envelope): Promise<RecipientOutcome> {
    try {
      const info = await transport.sendMail({
        envelope: { from, to: [to] },
        raw: message.raw,
        dsn: { id: message.messageId, return: 'headers', notify: ['success', 'failure', 'delay'] },
      });
      const refused = (info as { rejectedErrors?: SmtpError[] }).rejectedErrors?.[0];
      // Accepted by the relay, not yet delivered: the relay's DSN tells that later.
      return refused ? outcomeOf(to, refused) : { recipient: to, kind: 'accepted', detail: info.response };
    } catch (caught) {
      const error = caught as SmtpError;
      return outcomeOf(to, error.rejectedErrors?.[0] ?? error);
    }
  }

  return {
    name: 'smtp',
    async send(message: BuiltMessage): Promise<RecipientOutcome[]> {
      // Side by side: the pool's connections take them as they come free.
      return Promise.all(message.envelopes.map((envelope) => sendOne(message, envelope)));
    },
    async close() {
      transport.close();
    },
  };
}
