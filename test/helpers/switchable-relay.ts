import { once } from 'node:events';
import type { Socket } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { headerOf } from './smtp-sink.js';

/**
 * How the relay treats Mailroom now: takes its mail (`accept`); is not there at all (`closed`: nothing
 * listens on its port, connections are refused); refuses Mailroom's credentials (`auth-535`); refuses
 * to relay for it at MAIL FROM or at each RCPT TO (`relay-denied-mail`, `relay-denied-rcpt`).
 */
export type RelayMode = 'accept' | 'closed' | 'auth-535' | 'relay-denied-mail' | 'relay-denied-rcpt';

/** One message the relay took in full. */
export interface RelayArrival {
  /** The `Message-ID` header. */
  messageId: string | undefined;
  to: string[];
  at: number;
}

export interface SwitchableRelay {
  port: number;
  /** smtp://user:password@127.0.0.1:port: the relay requires AUTH with these. */
  url: string;
  mode(): RelayMode;
  /**
   * Changes how it answers. Every open session is cut first, as a relay restarted with new settings
   * cuts them: Mailroom's pooled connections, authenticated before, meet the new mode on their next
   * message rather than carrying on as before.
   */
  setMode(mode: RelayMode): Promise<void>;
  arrivals: RelayArrival[];
  /** Every RCPT TO it was sent, with the mode it met. */
  rcpts: { address: string; mode: RelayMode; at: number }[];
  /** Sessions that reached AUTH, accepted or refused. */
  auths(): number;
  close(): Promise<void>;
}

const USER = 'mailroom';
const PASSWORD = 'relay-secret';
const refusal = (code: number, text: string) => Object.assign(new Error(text), { responseCode: code });

/** A real SMTP relay on loopback (smtp-server) whose behaviour a test switches while Mailroom sends through it. */
export async function startSwitchableRelay(initial: RelayMode = 'accept'): Promise<SwitchableRelay> {
  let mode: RelayMode = initial;
  let auths = 0;
  const arrivals: RelayArrival[] = [];
  const rcpts: SwitchableRelay['rcpts'] = [];
  const sockets = new Set<Socket>();
  const server = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      auths++;
      if (mode === 'auth-535') return callback(refusal(535, '5.7.8 Authentication credentials invalid'));
      if (auth.username !== USER || auth.password !== PASSWORD) return callback(refusal(535, '5.7.8 Authentication credentials invalid'));
      callback(null, { user: USER });
    },
    onMailFrom(_address, _session, callback) {
      callback(mode === 'relay-denied-mail' ? refusal(554, '5.7.1 Relay access denied') : undefined);
    },
    onRcptTo(address, _session, callback) {
      rcpts.push({ address: address.address, mode, at: Date.now() });
      callback(mode === 'relay-denied-rcpt' ? refusal(554, `5.7.1 <${address.address}>: Relay access denied`) : undefined);
    },
    onData(stream, session, callback) {
      let head = '';
      stream.on('data', (chunk: Buffer) => {
        if (head.length < 16_384) head += chunk.toString('latin1');
      });
      stream.on('end', () => {
        arrivals.push({ messageId: headerOf(head, 'Message-ID'), to: session.envelope.rcptTo.map((r) => r.address), at: Date.now() });
        callback();
      });
    },
  });
  server.on('error', () => {});
  server.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const listen = async (port: number) => {
    server.server.listen(port, '127.0.0.1');
    await once(server.server, 'listening');
  };
  const stopListening = () => new Promise<void>((resolve) => (server.server.listening ? server.server.close(() => resolve()) : resolve()));
  const cutSessions = () => {
    for (const socket of sockets) socket.destroy();
  };

  await listen(0);
  const port = (server.server.address() as { port: number }).port;
  if (initial === 'closed') await stopListening();
  return {
    port,
    url: `smtp://${USER}:${PASSWORD}@127.0.0.1:${port}`,
    mode: () => mode,
    async setMode(next) {
      mode = next;
      const closing = next === 'closed' ? stopListening() : undefined;
      cutSessions();
      await closing;
      // The port the OS gave it at the start, again: the upstream's URL names it.
      if (next !== 'closed' && !server.server.listening) await listen(port);
    },
    arrivals,
    rcpts,
    auths: () => auths,
    async close() {
      cutSessions();
      await stopListening();
    },
  };
}
