import { once } from 'node:events';
import type { Logger } from 'pino';
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';
import type { InboundSettings } from '../config.js';
import { listenFailure } from '../listen-failure.js';
import { RETURN_PATH_LABEL } from '../services/dns-records.js';
import type { InboundVerdict } from '../services/inbound-report-service.js';
import { looksLikeReturnPath, type ReturnPathSigner } from './return-path.js';

/** Largest report taken: a bounce returns headers (RET=HDRS), a complaint the message; 10 MiB is plenty for either. */
export const INBOUND_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** Recipients one report may have: it goes to one return path, or the complaint address. */
export const INBOUND_MAX_RECIPIENTS = 10;
/** Connections at once; more wait at the TCP level. */
export const INBOUND_MAX_CONNECTIONS = 100;
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
  close(): Promise<void>;
}

/**
 * The inbound SMTP receiver (`INBOUND_SMTP_PORT`, the smtp-server package):
 * the MX of every return-path domain, where bounces, delivery notifications
 * and feedback-loop complaints arrive. Mail for anyone else is refused at
 * RCPT. A report is answered 250 only once it is recorded (or known as a
 * repeat); if recording fails, 451, so the sending MTA keeps it and retries:
 * nothing is lost.
 */
export async function startInboundReceiver(
  settings: InboundSettings,
  record: (raw: Buffer, rcptTo: string[]) => Promise<InboundVerdict>,
  logger: Pick<Logger, 'info' | 'warn' | 'error'>,
  signer: ReturnPathSigner,
): Promise<InboundReceiver> {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    banner: 'Mailroom inbound',
    logger: false,
    size: INBOUND_MAX_MESSAGE_BYTES,
    maxClients: INBOUND_MAX_CONNECTIONS,
    socketTimeout: INBOUND_SOCKET_TIMEOUT_MS,
    closeTimeout: 5_000,
    onRcptTo(address: SMTPServerAddress, session: SMTPServerSession, callback: (error?: Error | null) => void) {
      if (session.envelope.rcptTo.length >= INBOUND_MAX_RECIPIENTS) return callback(reply(452, '4.5.3 Too many recipients'));
      callback(recipientRefusal(address.address, settings, signer));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      let bytes = 0;
      // Past the limit the rest is read and dropped (smtp-server only flags it): a sender cannot fill memory.
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes <= INBOUND_MAX_MESSAGE_BYTES) chunks.push(chunk);
      });
      stream.on('end', () => {
        if (bytes > INBOUND_MAX_MESSAGE_BYTES || (stream as unknown as { sizeExceeded?: boolean }).sizeExceeded) {
          return callback(reply(552, `5.3.4 Message too big (at most ${INBOUND_MAX_MESSAGE_BYTES} bytes)`));
        }
        const rcptTo = session.envelope.rcptTo.map((r) => r.address);
        record(Buffer.concat(chunks), rcptTo).then(
          (verdict) => {
            const fields = { outcome: verdict.outcome, messageId: verdict.messageId, reason: verdict.reason, results: verdict.results };
            if (verdict.unreadable) logger.warn({ ...fields, unreadable: verdict.unreadable }, 'inbound report the parser could not read; taken for ordinary mail');
            else logger.info(fields, 'inbound report');
            callback(null, `2.0.0 Report ${verdict.outcome}`);
          },
          (error: unknown) => {
            logger.error({ err: error }, 'could not record an inbound report; the sender will retry');
            callback(reply(451, '4.3.0 Temporary failure, please try again later'));
          },
        );
      });
    },
  });
  server.on('error', (error) => logger.warn({ err: error }, 'inbound SMTP connection error'));
  server.listen(settings.port, settings.host);
  await once(server.server, 'listening').catch((error: unknown) => {
    throw listenFailure(error, { portVariable: 'INBOUND_SMTP_PORT', hostVariable: 'INBOUND_SMTP_HOST', host: settings.host, port: settings.port, optional: true });
  });
  const { port } = server.server.address() as { port: number };
  logger.info({ host: settings.host, port }, 'inbound SMTP receiver listening');
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
