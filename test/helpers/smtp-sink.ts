import { once } from 'node:events';
import { SMTPServer, type SMTPServerEnvelope } from 'smtp-server';

export interface ReceivedMessage {
  envelope: SMTPServerEnvelope;
  raw: string;
  /** The client's end of the connection it came on (pidOfConnection tells whose it is while it is open). */
  clientPort: number;
}

/** How the sink answers one RCPT TO: accept (undefined), or refuse with an SMTP code and text. */
export type RcptPolicy = (address: string) => { code: number; text: string } | undefined;

export interface SmtpSink {
  port: number;
  received: ReceivedMessage[];
  /** Every RCPT TO seen, accepted or not, in order. */
  rcptSeen: string[];
  /** The user names that authenticated, in order (with `auth`). */
  authenticated: string[];
  /** Every command line as received (smtp-server's own record, AUTH's argument hidden), with its session's id, in order. */
  commands: Array<{ session: string; line: string }>;
  close(): Promise<void>;
}

/**
 * A real SMTP server on loopback (the smtp-server package) that keeps what it
 * receives. It advertises DSN, as a relay that supports it would (unless
 * `dsn: false`: a next hop without it makes Postfix report `relayed` itself),
 * and no STARTTLS (there is no certificate to offer). With `auth` it requires
 * AUTH with those credentials (over plain text: loopback, no certificate).
 * It announces SMTPUTF8 unless `smtputf8: false`. The parsed envelope shows
 * a punycode domain decoded to Unicode; `commands` shows the bytes sent.
 */
export async function startSmtpSink(
  options: { port?: number; policy?: RcptPolicy; onData?: (message: ReceivedMessage) => void; /** Advertise DSN (default true). */ dsn?: boolean;
    /** Announce SMTPUTF8 (default true). */ smtputf8?: boolean;
    auth?: { user: string; pass: string };
  } = {},
): Promise<SmtpSink> {
  const received: ReceivedMessage[] = [];
  const rcptSeen: string[] = [];
  const authenticated: string[] = [];
  const commands: SmtpSink['commands'] = [];
  const ignore = () => {};
  const logger = {
    trace: ignore, info: ignore, warn: ignore, error: ignore, fatal: ignore,
    debug(entry: { tnx?: string; cid?: string }, _prefix: string, line: unknown) {
      if (entry.tnx === 'command') commands.push({ session: String(entry.cid), line: String(line) });
    },
  };
  const { auth } = options;
  const server = new SMTPServer({
    authOptional: auth === undefined,
    allowInsecureAuth: auth !== undefined,
    onAuth(attempt, _session, callback) {
      if (!auth || attempt.username !== auth.user || attempt.password !== auth.pass) return callback(new Error('Invalid username or password'));
      authenticated.push(attempt.username);
      callback(null, { user: attempt.username });
    },
    disabledCommands: ['STARTTLS'],
    hideDSN: options.dsn === false,
    hideSMTPUTF8: options.smtputf8 === false,
    logger,
    size: 10 * 1024 * 1024,
    onRcptTo(address, _session, callback) {
      rcptSeen.push(address.address);
      const refusal = options.policy?.(address.address);
      if (refusal) return callback(Object.assign(new Error(refusal.text), { responseCode: refusal.code }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const message = { envelope: structuredClone(session.envelope), raw: Buffer.concat(chunks).toString('utf8'), clientPort: session.remotePort };
        received.push(message);
        options.onData?.(message);
        callback();
      });
    },
  });
  // A client killed mid-session (a worker under kill -9) resets its connection: not the sink's failure.
  server.on('error', () => {});
  server.listen(options.port ?? 0, '127.0.0.1');
  await once(server.server, 'listening');
  const { port } = server.server.address() as { port: number };
  return { port, received, rcptSeen, authenticated, commands, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The value of a header of a raw message (unfolded), or undefined. */
export function headerOf(raw: string, name: string): string | undefined {
  const head = raw.slice(0, raw.indexOf('\r\n\r\n'));
  return new RegExp(`^${name}: (.*(?:\\r\\n[ \\t].*)*)`, 'mi').exec(head)?.[1]?.replace(/\r\n[ \t]/g, ' ');
}
