import { once } from 'node:events';
import type { Logger } from 'pino';
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';
import { createByteBudget } from '../lib/byte-budget.js';
import type { InboundSettings } from '../config.js';
import { listenFailure } from '../lib/listen-failure.js';
import { RETURN_PATH_LABEL } from '../domains/index.js';
import type { InboundVerdict, ReceivedReport } from './inbound-report-service.js';
import { countClientConnections } from './client-connections.js';
import { takeReport } from './report-intake.js';
import { looksLikeReturnPath, type ReturnPathSigner } from './return-path.js';
import { createThreadedReportParser, type ReportParse, type TimedReport } from './threaded-report-parser.js';

/** Largest report taken: a bounce returns headers (RET=HDRS), a complaint the message; 10 MiB is plenty for either. */
export const INBOUND_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** Recipients one report may have: it goes to one return path, or the complaint address. */
export const INBOUND_MAX_RECIPIENTS = 10;
/** Connections at once; more are refused (421) until one ends. */
export const INBOUND_MAX_CONNECTIONS = 100;
/** Connections at once from one client (an IPv4 address, an IPv6 /64): no client holds them all. */
export const INBOUND_MAX_CONNECTIONS_PER_CLIENT = 10;
/** Reports parsed at once; the others wait their turn, holding what the parser reads of them (read-limits.ts). */
export const INBOUND_MAX_PARSING = 4;
/** A silent client is dropped after this long. */
export const INBOUND_SOCKET_TIMEOUT_MS = 60_000;

const reply = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });

/**
 * Whether the receiver takes mail for an address: the complaint address, or a
 * signed return path on a return-path host whose tag matches and has not
 * expired. Anything else is refused at RCPT, saying why, so a forged report
 * is turned away before its content is read (the report service checks the
 * signature again: it is also called without the receiver).
 */
export function recipientRefusal(address: string, settings: Pick<InboundSettings, 'complaintAddress'>, signer: ReturnPathSigner): Error | null {
  const lower = address.toLowerCase();
  if (lower === settings.complaintAddress) return null;
  const domain = lower.slice(lower.lastIndexOf('@') + 1);
  if (!looksLikeReturnPath(lower) || !domain.startsWith(`${RETURN_PATH_LABEL}.`)) return reply(550, '5.1.1 No such recipient here');
  const check = signer.verify(lower);
  return check.ok ? null : reply(550, `5.7.1 Return path refused: ${check.reason}`);
}

export interface InboundReceiver {
  port: number;
  /** Connections open, reports being parsed and reports waiting to be (for tests). */
  state(): { connections: number; parsing: number; waiting: number };
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** How reports are read; by default on a thread of the receiver's own (threaded-report-parser.ts). */
  parse?: ReportParse;
}

/**
 * The inbound SMTP receiver (`INBOUND_SMTP_PORT`, the smtp-server package):
 * the MX of every return-path domain, where bounces, delivery notifications
 * and feedback-loop complaints arrive. Mail for anyone else is refused at
 * RCPT. A report is read only once its recipients are taken and it has
 * arrived within the size limit, counted as it arrives; then on the parser
 * thread, at most INBOUND_MAX_PARSING at once. It is answered 250 only once
 * it is recorded (or known as a repeat); if reading or recording it fails,
 * 451, so the sending MTA keeps it and retries: nothing is lost.
 */
export async function startInboundReceiver(
  settings: InboundSettings,
  record: (received: ReceivedReport, rcptTo: string[]) => Promise<InboundVerdict>,
  logger: Pick<Logger, 'info' | 'warn' | 'error'>,
  signer: ReturnPathSigner,
  options: ReceiverOptions = {},
): Promise<InboundReceiver> {
  const ownParser = options.parse ? undefined : createThreadedReportParser();
  const parse = options.parse ?? ownParser!;
  const clients = countClientConnections(INBOUND_MAX_CONNECTIONS_PER_CLIENT);
  // Parse turns: a budget of INBOUND_MAX_PARSING shares of one, first come, first served.
  const turns = createByteBudget(INBOUND_MAX_PARSING);
  // Settled when the session's connection closes: a report still waiting for its turn gives it up.
  const gone = new Map<string, { closed: Promise<void>; close(): void }>();

  /** Reads the report in its turn, then records it; null when its sender left before its turn came. */
  async function readAndRecord(head: Buffer, id: string, session: SMTPServerSession, rcptTo: string[]) {
    const closed = gone.get(session.id)?.closed;
    const giveBack = await turns.acquire(1, closed).catch(() => null);
    if (!giveBack) return null;
    let parsed: TimedReport;
    try {
      parsed = await parse(head);
    } finally {
      giveBack();
    }
    const verdict = await record({ report: parsed.report, id }, rcptTo);
    return { verdict, parse: { startedAt: parsed.startedAt, ms: parsed.ms } };
  }

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    banner: 'Mailroom inbound',
    logger: false,
    size: INBOUND_MAX_MESSAGE_BYTES,
    maxClients: INBOUND_MAX_CONNECTIONS,
    socketTimeout: INBOUND_SOCKET_TIMEOUT_MS,
    closeTimeout: 5_000,
    // The client's host name is of no use here, and a look-up for each connection is work an attacker sets.
    disableReverseLookup: true,
    onConnect(session, callback) {
      if (!clients.admit(session.id, session.remoteAddress)) {
        return callback(reply(421, `4.7.0 Too many connections from your address (at most ${INBOUND_MAX_CONNECTIONS_PER_CLIENT}), try again later`));
      }
      let close!: () => void;
      const closed = new Promise<void>((resolve) => (close = resolve));
      gone.set(session.id, { closed, close });
      callback();
    },
    onClose(session) {
      clients.release(session.id);
      gone.get(session.id)?.close();
      gone.delete(session.id);
    },
    onRcptTo(address: SMTPServerAddress, session: SMTPServerSession, callback: (error?: Error | null) => void) {
      if (session.envelope.rcptTo.length >= INBOUND_MAX_RECIPIENTS) return callback(reply(452, '4.5.3 Too many recipients'));
      callback(recipientRefusal(address.address, settings, signer));
    },
    onData(stream, session, callback) {
      const rcptTo = session.envelope.rcptTo.map((r) => r.address);
      takeReport(stream, INBOUND_MAX_MESSAGE_BYTES)
        .then(async (taken) => {
          if (taken.tooBig) return callback(reply(552, `5.3.4 Message too big (at most ${INBOUND_MAX_MESSAGE_BYTES} bytes)`));
          const done = await readAndRecord(taken.head, taken.id, session, rcptTo);
          if (!done) {
            logger.info({ bytes: taken.bytes }, 'inbound report given up: its sender left before it was read');
            return callback(reply(451, '4.3.0 Temporary failure, please try again later'));
          }
          const { outcome, messageId, reason, results, unreadable } = done.verdict;
          const fields = { outcome, messageId, reason, results, bytes: taken.bytes, parse: done.parse };
          if (unreadable) logger.warn({ ...fields, unreadable }, 'inbound report the parser could not read; taken for ordinary mail');
          else logger.info(fields, 'inbound report');
          callback(null, `2.0.0 Report ${outcome}`);
        })
        .catch((error: unknown) => {
          logger.error({ err: error }, 'could not record an inbound report; the sender will retry');
          callback(reply(451, '4.3.0 Temporary failure, please try again later'));
        });
    },
  });
  server.on('error', (error) => logger.warn({ err: error }, 'inbound SMTP connection error'));
  server.listen(settings.port, settings.host);
  await once(server.server, 'listening').catch(async (error: unknown) => {
    await ownParser?.close();
    throw listenFailure(error, { portVariable: 'INBOUND_SMTP_PORT', hostVariable: 'INBOUND_SMTP_HOST', host: settings.host, port: settings.port, optional: true });
  });
  const { port } = server.server.address() as { port: number };
  logger.info({ host: settings.host, port }, 'inbound SMTP receiver listening');
  return {
    port,
    state: () => ({ connections: clients.size(), parsing: turns.state().holders, waiting: turns.state().waiting }),
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await ownParser?.close();
    },
  };
}
