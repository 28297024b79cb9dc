import type { ConnectionOptions } from 'node:tls';
import type { StartTlsPolicy } from '../db/schema.js';
import nodemailer from 'nodemailer';
import { hasNonAsciiLocalPart, withAsciiDomain } from '../lib/email-address.js';
import type { BuiltMessage, Envelope } from './message-builder.js';
import { rawFor, type Provider, type RecipientOutcome } from './provider.js';
import { smtpOutcomes, type SmtpError, type SmtpResult } from './smtp-outcome.js';
import { sendWithSmtpUtf8, type RelaySettings, type Utf8Envelope } from './smtputf8-transaction.js';

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
 * Envelope domains go out in A-labels. An address with a non-ASCII local part
 * goes on a connection of its own, and only to a relay that announces
 * SMTPUTF8 (smtputf8-transaction.ts).
 */
export function createSmtpProvider(
  smtpUrl: string,
  options: {
    tls?: ConnectionOptions;
    /** Tests of a silent relay: shorter than the defaults. */
    timeouts?: { connectionMs: number; greetingMs: number; socketMs: number };
    /** A workspace upstream's STARTTLS policy; SMTP_URL's relay uses STARTTLS when offered. */
    starttls?: StartTlsPolicy;
  } = {},
): Provider {
  const url = new URL(smtpUrl);
  const port = url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587;
  /** How the relay is named in errors and the log: never with SMTP_URL's credentials. */
  const host = `${url.hostname}:${port}`;
  const relay: RelaySettings = {
    host: url.hostname,
    port,
    secure: url.protocol === 'smtps:',
    ...(url.username ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } } : {}),
    // Certificates are checked against the system's CAs; `tls` adds to that (a private CA, for one).
    ...(options.tls ? { tls: options.tls } : {}),
    ...(options.starttls === 'required' ? { starttls: { requireTLS: true } } : options.starttls === 'never' ? { starttls: { ignoreTLS: true } } : {}),
    timeouts: options.timeouts ?? { connectionMs: SMTP_CONNECTION_TIMEOUT_MS, greetingMs: SMTP_GREETING_TIMEOUT_MS, socketMs: SMTP_SOCKET_TIMEOUT_MS },
  };
  const transport = nodemailer.createTransport({
    pool: true,
    maxConnections: SMTP_POOL_SIZE,
    host: relay.host,
    port: relay.port,
    secure: relay.secure,
    ...(relay.auth ? { auth: relay.auth } : {}),
    connectionTimeout: relay.timeouts.connectionMs,
    greetingTimeout: relay.timeouts.greetingMs,
    socketTimeout: relay.timeouts.socketMs,
    ...(relay.tls ? { tls: relay.tls } : {}),
    ...relay.starttls,
  });

  /**
   * Not a relay's refusal but Mailroom's, with nothing sent: `failed`, not
   * `permanent`. No server refused the address (a bounce is a refusal by the
   * recipient's server), the send failed before reaching the upstream, for
   * want of what SMTP_SMTPUTF8=true promised (SPEC.md §3.1's `failed`), and
   * nothing is suppressed: with SMTPUTF8 on the relay the address may be good.
   */
  const smtpUtf8Missing = (recipient: string, ehlo: string): RecipientOutcome => ({
    recipient,
    kind: 'failed',
    detail: `Not sent: the SMTP relay ${host} does not announce SMTPUTF8 (RFC 6531), which an address with a non-ASCII local part needs (check the relay's settings and SMTP_SMTPUTF8)`,
    problem: { kind: 'smtputf8', host, reply: ehlo.split(/\r?\n/).join(' | ') },
  });

  /** One recipient, in a transaction of its own: its envelope sender is signed for it alone. */
  async function sendOne(message: BuiltMessage, target: Envelope): Promise<SmtpResult> {
    const { from, to } = target;
    const raw = rawFor(message, target);
    const envelope: Utf8Envelope = {
      from: withAsciiDomain(from),
      to: withAsciiDomain(to),
      // SIZE (RFC 1870): a relay that announces a smaller limit is not sent the message in vain.
      size: raw.length,
      dsn: { id: message.messageId, return: 'headers', notify: ['success', 'failure', 'delay'] },
    };
    if (hasNonAsciiLocalPart(envelope.from) || hasNonAsciiLocalPart(envelope.to)) {
      const result = await sendWithSmtpUtf8(relay, envelope, raw);
      if ('notAnnounced' in result) return { recipient: to, outcome: smtpUtf8Missing(to, result.notAnnounced) };
      return { recipient: to, ...result };
    }
    try {
      const info = await transport.sendMail({
        envelope: { from: envelope.from, to: [envelope.to], size: envelope.size } as { from: string; to: string[] },
        raw,
        dsn: envelope.dsn,
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
    /** EHLO, STARTTLS as the policy says, and AUTH when the URL has a user: what POST /v1/upstreams/{id}/test answers. */
    async verify(): Promise<void> {
      await transport.verify();
    },
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
