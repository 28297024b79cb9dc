import { once } from 'node:events';
import type { Logger } from 'pino';
import { SMTPServer, type SMTPServerAuthentication, type SMTPServerAuthenticationResponse, type SMTPServerSession } from 'smtp-server';
import type { Config, SubmissionSettings } from '../config.js';
import { clientNetworkOf } from '../lib/client-network.js';
import { listenFailure } from '../lib/listen-failure.js';
import type { AuthenticatedKey } from '../api-keys/index.js';
import { parseMailbox } from '../lib/email-address.js';
import type { RateLimiter } from '../lib/rate-limiter.js';
import { MAX_RECIPIENTS, type SendInput, type SendingKey, type SendResult, MAX_ATTACHMENT_BYTES, SMALL_SEND_BYTES } from '../sending/index.js';
import type { ByteBudget } from '../lib/byte-budget.js';
import { sendInputFromMail } from './mail-to-send.js';
import { replyForError, smtpReply, SUBMISSION_REPLIES as R } from './replies.js';
import { configuredCertificate, selfSignedCertificate } from './tls-certificate.js';

/**
 * The SIZE announced, and the most DATA taken: 40 MB of attachments in base64
 * (4 bytes for 3, a CRLF every 76 characters) and 10 MiB for everything else,
 * as the send route's JSON body limit allows (sending/send-routes.ts): 70 MiB.
 */
export const SUBMISSION_MAX_MESSAGE_BYTES = 70 * 1024 * 1024;
if (SUBMISSION_MAX_MESSAGE_BYTES < 10 * 1024 * 1024 + Math.ceil(MAX_ATTACHMENT_BYTES / 57) * 78) throw new Error('SUBMISSION_MAX_MESSAGE_BYTES is too small for MAX_ATTACHMENT_BYTES');
/** The user name of AUTH; the password is the API key. */
export const SUBMISSION_USER = 'mailroom';
/** Connections at once; more wait at the TCP level. */
export const SUBMISSION_MAX_CONNECTIONS = 100;
/** A silent client is dropped after this long. */
export const SUBMISSION_SOCKET_TIMEOUT_MS = 60_000;

/** What the server needs of the app: the HTTP API's own key check, rate limiter and acceptance service. */
export interface SubmissionDeps {
  authenticate(key: string): Promise<AuthenticatedKey | null>;
  rateLimiter: RateLimiter;
  limits: Config['rateLimits'];
  accept(workspaceId: string, input: SendInput, key: SendingKey): Promise<SendResult>;
  /** The memory large sends may take at once, shared with the HTTP send routes (services.sendMemory). */
  memory: ByteBudget;
  /** Makes the self-signed certificate when no SUBMISSION_TLS_CERT is set (selfSignedCertificate; a test gives one that fails). */
  makeCertificate?: typeof selfSignedCertificate;
}

export interface SubmissionServer {
  port: number;
  close(): Promise<void>;
}

type Callback = (error?: Error | null) => void;
const keyOf = (session: SMTPServerSession) => session.user as unknown as AuthenticatedKey;
/** A large message's share of the memory budget: its declared SIZE (at least what has arrived), else the most a message may be. */
const shareOf = (session: SMTPServerSession, arrived: number) => {
  const args = session.envelope.mailFrom ? session.envelope.mailFrom.args : false;
  const declared = Number(args ? args.SIZE : undefined);
  return Number.isFinite(declared) && declared > 0 ? Math.min(Math.max(declared, arrived), SUBMISSION_MAX_MESSAGE_BYTES) : SUBMISSION_MAX_MESSAGE_BYTES;
};
const secondsUntil = (resetAt: number) => Math.max(1, resetAt - Math.floor(Date.now() / 1000));

/**
 * SMTP submission (`SUBMISSION_PORT`, the smtp-server package): applications
 * that speak only SMTP send through Mailroom. STARTTLS, then AUTH PLAIN or
 * LOGIN as `mailroom` with an API key; each message is read into the body of
 * POST /v1/send and given to the same acceptance service, counted against the
 * key's `send` budget (its recipients, by that service, against the
 * workspace's recipients per minute), and answered 250 with its message id
 * only once it is recorded. Replies: replies.ts.
 */
export async function startSubmissionServer(
  settings: SubmissionSettings,
  deps: SubmissionDeps,
  logger: Pick<Logger, 'info' | 'warn' | 'error'>,
): Promise<SubmissionServer> {
  const certificate = await configuredCertificate(settings);
  // Without the operator's certificate, the first client waits, before its greeting, for one to be made;
  // a failure is not kept, so the next client tries again.
  let selfSigned: Promise<void> | undefined;
  const certificateReady = (): Promise<void> =>
    (selfSigned ??= (deps.makeCertificate ?? selfSignedCertificate)(settings, logger).then(
      (made) => server.updateSecureContext(made),
      (error: unknown) => {
        selfSigned = undefined;
        throw error;
      },
    ));
  const server = new SMTPServer({
    ...certificate,
    secure: false,
    name: settings.hostname,
    banner: 'Mailroom submission',
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: settings.allowInsecureAuth,
    authRequiredMessage: R.authRequired.text(),
    size: SUBMISSION_MAX_MESSAGE_BYTES,
    maxClients: SUBMISSION_MAX_CONNECTIONS,
    socketTimeout: SUBMISSION_SOCKET_TIMEOUT_MS,
    closeTimeout: 5_000,
    disableReverseLookup: true,
    logger: false,
    onConnect(_session, callback: Callback) {
      if (certificate) return callback();
      certificateReady().then(
        () => callback(),
        (error: unknown) => {
          logger.error({ err: error }, 'SMTP submission could not make its self-signed certificate');
          callback(smtpReply(R.noCertificate.code, R.noCertificate.text()));
        },
      );
    },
    onAuth(auth: SMTPServerAuthentication, session: SMTPServerSession, callback: (error: Error | null | undefined, response?: SMTPServerAuthenticationResponse) => void) {
      authenticate(auth, session).then(
        (user) => callback(null, { user }),
        (error: Error) => callback(error),
      );
    },
    onMailFrom(_address, session, callback: Callback) {
      // One MAIL is one send request of the key's `send` budget, as one POST /v1/send is; counted before DATA is read.
      const key = keyOf(session);
      deps.rateLimiter.consume(`key:${key.keyId}:send`, deps.limits.sendPerMinute).then(
        (decision) => callback(decision.allowed ? null : smtpReply(R.rateLimited.code, R.rateLimited.text(secondsUntil(decision.resetAt)))),
        (error: unknown) => callback(refusal(error, session)),
      );
    },
    onRcptTo(address, session, callback: Callback) {
      // Past the send rules' limit the client keeps the rest for another transaction (RFC 5321 §4.5.3.1.10).
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) return callback(smtpReply(R.tooManyRecipients.code, R.tooManyRecipients.text(MAX_RECIPIENTS)));
      // Whether the provider takes a non-ASCII local part is the send rules' to say, at DATA.
      if (typeof parseMailbox(address.address, { utf8LocalPart: true }) !== 'object') return callback(smtpReply(R.badRecipient.code, R.badRecipient.text()));
      callback();
    },
    onData(stream, session, callback: (error?: Error | null, message?: string) => void) {
      const chunks: Buffer[] = [];
      let bytes = 0;
      let share: Promise<void> | undefined;
      let release: (() => void) | undefined;
      const answer = (error: Error | null, message?: string) => {
        release?.();
        callback(error, message);
      };
      // Past the limit the rest is read and dropped (smtp-server only flags it): a client cannot fill memory.
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes <= SUBMISSION_MAX_MESSAGE_BYTES) chunks.push(chunk);
        // A large message is read on only once the memory that every way in shares has room for it, as a
        // large HTTP send is (sending/send-memory.ts); TCP holds the client back meanwhile.
        if (share || bytes < SMALL_SEND_BYTES) return;
        stream.pause();
        share = deps.memory.acquire(shareOf(session, bytes), closedConnection(session)).then(
          (give) => {
            release = give;
            stream.resume();
          },
          () => {}, // the connection went while it waited: nothing held, nothing to answer
        );
      });
      stream.on('end', () => {
        if (bytes > SUBMISSION_MAX_MESSAGE_BYTES || stream.sizeExceeded) {
          return answer(smtpReply(R.tooBig.code, R.tooBig.text(`at most ${SUBMISSION_MAX_MESSAGE_BYTES} bytes`)));
        }
        submit(Buffer.concat(chunks), session).then(
          (message) => answer(null, message),
          (error: Error) => answer(error),
        );
      });
    },
    onClose(session) {
      closings.get(session.id)?.();
      closings.delete(session.id);
    },
  });

  /** Settles when the connection of `session` closes: a message waiting for memory then leaves the queue. */
  const closings = new Map<string, () => void>();
  const closedConnection = (session: SMTPServerSession) => new Promise<void>((resolve) => closings.set(session.id, resolve));

  async function authenticate(auth: SMTPServerAuthentication, session: SMTPServerSession): Promise<AuthenticatedKey> {
    let key: AuthenticatedKey | null;
    try {
      key = auth.username === SUBMISSION_USER && auth.password ? await deps.authenticate(auth.password) : null;
      if (key) return key;
      // Failures are counted per client address, as the HTTP API counts requests without a valid key.
      const decision = await deps.rateLimiter.consume(`ip:${clientNetworkOf(session.remoteAddress)}`, deps.limits.otherPerMinute);
      if (!decision.allowed) throw smtpReply(R.authThrottled.code, R.authThrottled.text(secondsUntil(decision.resetAt)));
    } catch (error) {
      if (error instanceof Error && 'responseCode' in error) throw error;
      logger.error({ err: error }, 'SMTP submission could not check credentials');
      throw smtpReply(R.authUnavailable.code, R.authUnavailable.text());
    }
    throw smtpReply(R.badCredentials.code, R.badCredentials.text());
  }

  async function submit(raw: Buffer, session: SMTPServerSession): Promise<string> {
    const key = keyOf(session);
    const envelope = {
      mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
      rcptTo: session.envelope.rcptTo.map((rcpt) => rcpt.address),
    };
    let result: SendResult;
    try {
      result = await deps.accept(key.workspaceId, await sendInputFromMail(raw, envelope), { id: key.keyId, domainId: key.domainId });
    } catch (error) {
      throw refusal(error, session);
    }
    const context = { keyId: key.keyId, messageId: result.message_id, status: result.status, recipients: envelope.rcptTo.length };
    if (result.status === 'sent') {
      logger.info(context, 'SMTP submission accepted');
      return R.queued.text(result.message_id);
    }
    // Recorded as the HTTP API records it, but refused: an SMTP client takes a 250 as "sent".
    logger.info(context, 'SMTP submission recorded but not sent');
    const why = result.status === 'failed' ? (result.error ?? 'the send failed') : 'every recipient is on the suppression list';
    throw smtpReply(R.notSent.code, R.notSent.text(why, result.message_id));
  }

  function refusal(error: unknown, session: SMTPServerSession): Error {
    const { reply, internal } = replyForError(error);
    if (internal) logger.error({ err: error, keyId: keyOf(session)?.keyId }, 'SMTP submission failed; the client will retry');
    return reply;
  }

  server.on('error', (error) => logger.warn({ err: error }, 'SMTP submission connection error'));
  server.listen(settings.port, settings.host);
  try {
    await once(server.server, 'listening');
  } catch (error) {
    throw listenFailure(error, { portVariable: 'SUBMISSION_PORT', hostVariable: 'HOST', host: settings.host, port: settings.port, optional: true });
  }
  const { port } = server.server.address() as { port: number };
  logger.info({ host: settings.host, port }, 'SMTP submission listening');
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
