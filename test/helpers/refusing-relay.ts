import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A reply a relay gives: an SMTP code and its text (the enhanced code in the text, as servers write it). */
export interface Reply {
  code: number;
  text: string;
}

/** At which step the relay refuses, and with what; every other step is accepted. */
export interface Refusals {
  greeting?: Reply;
  auth?: Reply;
  mailFrom?: Reply;
  /** Per recipient, or the same for all. */
  rcptTo?: Reply | ((address: string) => Reply | undefined);
  data?: Reply;
  /** The SIZE the relay announces (RFC 1870), in bytes. */
  size?: number;
}

export interface TestRelay {
  port: number;
  /** Messages whose DATA was accepted. */
  accepted: number;
  close(): Promise<void>;
}

const refusal = (reply: Reply) => Object.assign(new Error(reply.text), { responseCode: reply.code });

/**
 * A real SMTP server on loopback (the smtp-server package) that refuses at
 * the step and with the reply the test names, as a relay would answer
 * Mailroom. AUTH is offered (over plain text, loopback only) and required
 * only when `auth` refuses.
 */
export async function startRefusingRelay(refusals: Refusals): Promise<TestRelay> {
  const relay: TestRelay = { port: 0, accepted: 0, close: async () => {} };
  const server = new SMTPServer({
    authOptional: !refusals.auth,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    ...(refusals.size ? { size: refusals.size } : {}),
    onConnect(_session, callback) {
      callback(refusals.greeting ? refusal(refusals.greeting) : undefined);
    },
    onAuth(_auth, _session, callback) {
      if (refusals.auth) return callback(refusal(refusals.auth));
      callback(null, { user: 'mailroom' });
    },
    onMailFrom(_address, _session, callback) {
      callback(refusals.mailFrom ? refusal(refusals.mailFrom) : undefined);
    },
    onRcptTo(address, _session, callback) {
      const reply = typeof refusals.rcptTo === 'function' ? refusals.rcptTo(address.address) : refusals.rcptTo;
      callback(reply ? refusal(reply) : undefined);
    },
    onData(stream, _session, callback) {
      stream.resume();
      stream.on('end', () => {
        if (refusals.data) return callback(refusal(refusals.data));
        relay.accepted++;
        callback();
      });
    },
  });
  server.on('error', () => {});
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  relay.port = (server.server.address() as { port: number }).port;
  relay.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return relay;
}

/**
 * A raw SMTP peer on loopback, for what smtp-server cannot be told to do (it
 * turns a NUL in its replies into a space, and cannot refuse EHLO): it greets,
 * then answers each command line with `answer(line)`, QUIT always with 221.
 * `answer` undefined: it greets nothing at all, a relay that hangs.
 */
export async function startScriptedRelay(answer: ((line: string) => string) | undefined): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    if (!answer) return; // silent: the client's greeting timeout decides
    socket.write('220 relay.test ESMTP\r\n');
    socket.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\r\n').filter(Boolean)) {
        if (/^QUIT/i.test(line)) socket.end('221 bye\r\n');
        else socket.write(`${answer(line)}\r\n`);
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A relay that greets, then refuses EHLO and HELO with `reply` (`reply` undefined: greets nothing, a relay that hangs). */
export function startRawRelay(reply: Reply | undefined): Promise<{ port: number; close(): Promise<void> }> {
  return startScriptedRelay(reply && ((line) => (/^(EHLO|HELO)/i.test(line) ? `${reply.code} ${reply.text}` : '503 5.5.1 Bad sequence of commands')));
}
