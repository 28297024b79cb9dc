import nodemailer from 'nodemailer';
import type { BuiltMessage } from './message-builder.js';
import type { Provider, RecipientOutcome } from './provider.js';

/** Connections kept open to the relay; messages beyond these wait for one. */
export const SMTP_POOL_SIZE = 5;
/** Bounds on each step of talking to the relay: a silent relay is a temporary failure, not a hang. */
export const SMTP_CONNECTION_TIMEOUT_MS = 10_000;
export const SMTP_GREETING_TIMEOUT_MS = 10_000;
export const SMTP_SOCKET_TIMEOUT_MS = 60_000;

interface SmtpError extends Error {
  responseCode?: number;
  response?: string;
  recipient?: string;
  rejectedErrors?: SmtpError[];
}

function outcomeOf(recipient: string, error: SmtpError): RecipientOutcome {
  const code = error.responseCode;
  return {
    recipient,
    // A 5xx reply is the relay's final word; anything else (4xx, no reply at all) may pass.
    kind: code !== undefined && code >= 500 ? 'permanent' : 'temporary',
    detail: error.response ?? error.message,
  };
}

/**
 * Relays through SMTP_URL (`smtp://user:pass@host:587`, or `smtps://` for TLS
 * from the start) with a pooled Nodemailer transport. STARTTLS is used when
 * the relay offers it; AUTH comes from the URL. Each message asks for DSNs
 * (NOTIFY=SUCCESS,FAILURE,DELAY, ENVID = the message id, RET=HDRS), so a relay
 * that supports them reports deliveries and bounces to the return path.
 */
export function createSmtpProvider(smtpUrl: string): Provider {
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
  });

  return {
    name: 'smtp',
    async send(message: BuiltMessage): Promise<RecipientOutcome[]> {
      const recipients = message.envelope.to;
      try {
        const info = await transport.sendMail({
          envelope: message.envelope,
          raw: message.raw,
          dsn: { id: message.messageId, return: 'headers', notify: ['success', 'failure', 'delay'] },
        });
        const refused = new Map(((info as { rejectedErrors?: SmtpError[] }).rejectedErrors ?? []).map((e) => [e.recipient, e]));
        return recipients.map((recipient) => {
          const error = refused.get(recipient);
          return error ? outcomeOf(recipient, error) : { recipient, kind: 'accepted', detail: info.response };
        });
      } catch (caught) {
        const error = caught as SmtpError;
        // Every recipient refused: each with its own reply. Otherwise (MAIL FROM or DATA refused, no connection) all share it.
        const refused = new Map((error.rejectedErrors ?? []).map((e) => [e.recipient, e]));
        return recipients.map((recipient) => outcomeOf(recipient, refused.get(recipient) ?? error));
      }
    },
    async close() {
      transport.close();
    },
  };
}
