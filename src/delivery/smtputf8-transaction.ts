import type { ConnectionOptions } from 'node:tls';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import type { SmtpError } from './smtp-outcome.js';

/** Where the relay is and how to talk to it: what the pooled transport is given, for a connection of one's own. */
export interface RelaySettings {
  host: string;
  port: number;
  secure: boolean;
  auth?: { user: string; pass: string };
  tls?: ConnectionOptions;
  /** STARTTLS: Nodemailer's requireTLS (`required`) or ignoreTLS (`never`); used when offered by default. */
  starttls?: { requireTLS?: boolean; ignoreTLS?: boolean };
  timeouts: { connectionMs: number; greetingMs: number; socketMs: number };
}

export interface Utf8Envelope {
  from: string;
  to: string;
  size: number;
  dsn: { id: string; return: 'headers'; notify: Array<'success' | 'failure' | 'delay'> };
}

/** The transaction was taken, refused (or failed) at the relay, or never begun: the relay's EHLO reply holds no SMTPUTF8. */
export type Utf8Result = { accepted: string } | { error: SmtpError } | { notAnnounced: string };

/**
 * Whether an EHLO reply announces an extension: a line after the greeting
 * whose first word is its keyword (RFC 5321 §4.1.1.1). Stricter than
 * Nodemailer's own reading of the same reply, so that when this says yes,
 * Nodemailer puts SMTPUTF8 on MAIL FROM too.
 */
export function announces(ehloReply: string, keyword: string): boolean {
  return ehloReply
    .split(/\r?\n/)
    .slice(1)
    .some((line) => line.replace(/^\d{3}[ -]/, '').trim().split(/\s+/)[0]?.toUpperCase() === keyword);
}

/**
 * One transaction on a connection of its own, for an envelope with a
 * non-ASCII local part. A pooled connection does not say what its relay
 * announced before it sends, and Nodemailer sends such an address 8-bit
 * without SMTPUTF8 to a relay that does not announce it (which RFC 6531
 * §3.4 forbids). Here the EHLO reply of the very connection that would carry
 * the message is read first (Nodemailer's `lastServerResponse` once it has
 * connected), and without SMTPUTF8 the session ends with QUIT: no MAIL FROM.
 * Such addresses are rare, so one connection each costs little.
 */
export function sendWithSmtpUtf8(relay: RelaySettings, envelope: Utf8Envelope, raw: Buffer): Promise<Utf8Result> {
  const connection = new SMTPConnection({
    host: relay.host,
    port: relay.port,
    secure: relay.secure,
    connectionTimeout: relay.timeouts.connectionMs,
    greetingTimeout: relay.timeouts.greetingMs,
    socketTimeout: relay.timeouts.socketMs,
    ...(relay.tls ? { tls: relay.tls } : {}),
    ...relay.starttls,
  });
  return new Promise<Utf8Result>((resolve) => {
    let settled = false;
    const settle = (result: Utf8Result, polite: boolean) => {
      if (settled) return;
      settled = true;
      if (polite) connection.quit();
      else connection.close();
      resolve(result);
    };
    connection.on('error', (error: SmtpError) => settle({ error }, false));
    connection.once('end', () => settle({ error: Object.assign(new Error('The relay closed the connection'), { code: 'ECONNECTION' }) }, false));

    const send = () =>
      connection.send({ from: envelope.from, to: [envelope.to], size: envelope.size, dsn: envelope.dsn }, raw, (error, info) => {
        if (error) return settle({ error: (error as SmtpError).rejectedErrors?.[0] ?? (error as SmtpError) }, false);
        const refused = info.rejectedErrors?.[0] as SmtpError | undefined;
        settle(refused ? { error: refused } : { accepted: info.response }, true);
      });

    connection.connect((error?: Error | null) => {
      if (error) return settle({ error: error as SmtpError }, false);
      // After connect, the last reply is EHLO's (after STARTTLS, the second EHLO's); a relay that took only HELO announces nothing.
      const ehlo = typeof connection.lastServerResponse === 'string' ? connection.lastServerResponse : '';
      if (!announces(ehlo, 'SMTPUTF8')) return settle({ notAnnounced: ehlo }, true);
      // As the pool does: credentials only to a relay that offers AUTH.
      if (!relay.auth || !connection.allowsAuth) return send();
      connection.login({ user: relay.auth.user, pass: relay.auth.pass }, (loginError) => (loginError ? settle({ error: loginError as SmtpError }, false) : send()));
    });
  });
}
