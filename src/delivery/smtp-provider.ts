import type { ConnectionOptions } from 'node:tls';
import nodemailer from 'nodemailer';
import type { BuiltMessage, Envelope } from './message-builder.js';
import type { Provider, RecipientOutcome } from './provider.js';
import { smtpOutcomes, type SmtpError } from './smtp-outcome.js';

/** Connections kept open to the relay; messages beyond these wait for one. */
export const SMTP_POOL_SIZE = 5;
/** Bounds on each step of talking to the relay: a silent relay is a temporary failure, not a hang. */
export const SMTP_CONNECTION_TIMEOUT_MS = 10_000;
export const SMTP_GREETING_TIMEOUT_MS = 10_000;
export const SMTP_SOCKET_TIMEOUT_MS = 60_000;

/**
 * Relays through SMTP_URL (`smtp://user:pass@host:587`, or `smtps://` for TLS
 * from the start) with a pooled Nodemailer transport, one transaction per
 * recipient (each with its own signed return path). STARTTLS is used when
 * the relay offers it; AUTH comes from the URL. Each message asks for DSNs
 * (NOTIFY=SUCCESS,FAILURE,DELAY, ENVID = the message id, RET=HDRS), so a relay
 * that supports them reports bounces, and success ("relayed" from a relay like
 * Postfix, "delivered" from the last DSN-aware hop), to the return path.
 */
export function createSmtpProvider(
  smtpUrl: string,
  options: { tls?: ConnectionOptions; /** Tests of a silent relay: shorter than the defaults. */ timeouts?: { connectionMs: number; greetingMs: number; socketMs: number } } = {},
): Provider {
  const url = new URL(smtpUrl);
  const port = url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587;
  /** How the relay is named in errors and the log: never with SMTP_URL's credentials. */
  const host = `${url.hostname}:${port}`;
  const transport = nodemailer.createTransport({
    pool: true,
    maxConnections: SMTP_POOL_SIZE,
    host: url.hostname,
    port,
    secure: url.protocol === 'smtps:',
    ...(url.username ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } } : {}),
    connectionTimeout: options.timeouts?.connectionMs ?? SMTP_CONNECTION_TIMEOUT_MS,
    greetingTimeout: options.timeouts?.greetingMs ?? SMTP_GREETING_TIMEOUT_MS,
    socketTimeout: options.timeouts?.socketMs ?? SMTP_SOCKET_TIMEOUT_MS,
    // Certificates are checked against the system's CAs; `tls` adds to that (a private CA, for one).
    ...(options.tls ? { tls: options.tls } : {}),
  });

  type Result = { recipient: string; accepted: string } | { recipient: string; error: SmtpError };

  /** One recipient, in a transaction of its own: its envelope sender is signed for it alone. */
  async function sendOne(message: BuiltMessage, { from, to }: Envelope): Promise<Result> {
    try {
      const info = await transport.sendMail({
        // SIZE (RFC 1870): a relay that announces a smaller limit is not sent the message in vain.
        envelope: { from, to: [to], size: message.raw.length } as { from: string; to: string[] },
        raw: message.raw,
        dsn: { id: message.messageId, return: 'headers', notify: ['success', 'failure', 'delay'] },
      });
      const refused = (info as { rejectedErrors?: SmtpError[] }).rejectedErrors?.[0];
      // Accepted by the relay, not yet delivered: the relay's DSN tells that later.
      return refused ? { recipient: to, error: refused } : { recipient: to, accepted: info.response };
    } catch (caught) {
      const error = caught as SmtpError;
      return { recipient: to, error: error.rejectedErrors?.[0] ?? error };
    }
  }

  return {
    name: 'smtp',
    async send(message: BuiltMessage): Promise<RecipientOutcome[]> {
      // Side by side: the pool's connections take them as they come free.
      const timed = await Promise.all(
        message.envelopes.map(async (envelope) => {
          const started = performance.now();
          const result = await sendOne(message, envelope);
          return { result, durationMs: Math.round(performance.now() - started) };
        }),
      );
      return smtpOutcomes(timed.map((t) => t.result), host).map((outcome, i) => ({ ...outcome, durationMs: timed[i]!.durationMs }));
    },
    async close() {
      transport.close();
    },
  };
}
