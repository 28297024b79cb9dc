import { execFileSync } from 'node:child_process';
import { createSign, generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringToSign, type SnsEnvelope } from '../../src/ses-events/index.js';

/**
 * Stands in for SNS: a test CA (its file is what NODE_EXTRA_CA_CERTS names), an https server on
 * 127.0.0.1 with a certificate from it that serves the signing certificate and answers SubscribeURLs,
 * and SNS's JSON messages signed with the signing key, field for field as AWS sends them.
 */
export interface SnsPublisher {
  /** The test CA's PEM file. */
  caFile: string;
  ca: string;
  /** `127.0.0.1:<port>`: what SES_SNS_TRUSTED_HOSTS names. */
  host: string;
  certUrl: string;
  /** GETs of the signing certificate so far. */
  certFetches: number;
  /** SubscribeURL calls so far, by token. */
  confirmCalls: string[];
  /** How many coming SubscribeURL calls answer 500 before one answers 200. */
  failConfirms: number;
  notification(options: NotificationOptions): SnsEnvelope & { UnsubscribeURL: string };
  subscription(options: { topicArn: string; type?: 'SubscriptionConfirmation' | 'UnsubscribeConfirmation'; subscribeUrl?: string; timestamp?: Date }): SnsEnvelope;
  /** Signs again with another key (a forgery) or after a field changed. */
  sign<T extends SnsEnvelope>(envelope: T, key?: string): T;
  close(): Promise<void>;
}

export interface NotificationOptions {
  topicArn: string;
  /** SES's event JSON: written as SNS does, a string in `Message`. */
  message: object | string;
  subject?: string;
  messageId?: string;
  timestamp?: Date;
  signatureVersion?: '1' | '2';
  certUrl?: string;
  /** A key other than the signing certificate's: a forged signature. */
  key?: string;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

/** A CA, a server certificate for 127.0.0.1 and a signing certificate, made by openssl in a temporary directory. */
function makeCertificates(dir: string) {
  openssl(dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Mailroom SNS test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  openssl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1']);
  openssl(dir, ['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'server.ext']);
  openssl(dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'signing.key', '-out', 'signing.pem', '-days', '2', '-subj', '/CN=sns.us-east-1.amazonaws.com']);
  const read = (name: string) => readFileSync(join(dir, name), 'utf8');
  return { ca: read('ca.pem'), serverKey: read('server.key'), serverCert: read('server.pem'), signingKey: read('signing.key'), signingCert: read('signing.pem') };
}

/** A key no certificate belongs to: what a forger signs with. */
export function forgerKey(): string {
  return generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

export async function startSnsPublisher(): Promise<SnsPublisher> {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-sns-'));
  const certs = makeCertificates(dir);
  const caFile = join(dir, 'ca.pem');
  const server = createServer({ key: certs.serverKey, cert: certs.serverCert }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    if (url.pathname.endsWith('.pem')) {
      publisher.certFetches++;
      res.writeHead(200, { 'content-type': 'application/x-pem-file' }).end(certs.signingCert);
    } else if (url.searchParams.get('Action') === 'ConfirmSubscription') {
      publisher.confirmCalls.push(url.searchParams.get('Token') ?? '');
      if (publisher.failConfirms > 0) {
        publisher.failConfirms--;
        res.writeHead(500).end('<ErrorResponse><Error><Code>InternalFailure</Code></Error></ErrorResponse>');
      } else {
        res.writeHead(200, { 'content-type': 'text/xml' }).end('<ConfirmSubscriptionResponse><ConfirmSubscriptionResult><SubscriptionArn>arn:aws:sns:us-east-1:123456789012:ses-events:1</SubscriptionArn></ConfirmSubscriptionResult></ConfirmSubscriptionResponse>');
      }
    } else {
      res.writeHead(404).end();
    }
  });
  const host = `127.0.0.1:${await listen(server)}`;
  const certUrl = `https://${host}/SimpleNotificationService-0000000000000000000000.pem`;

  const sign = <T extends SnsEnvelope>(envelope: T, key = certs.signingKey): T => {
    const signer = createSign(envelope.SignatureVersion === '1' ? 'RSA-SHA1' : 'RSA-SHA256');
    signer.update(stringToSign(envelope), 'utf8');
    return { ...envelope, Signature: signer.sign(key, 'base64') };
  };

  const publisher: SnsPublisher = {
    caFile,
    ca: certs.ca,
    host,
    certUrl,
    certFetches: 0,
    confirmCalls: [],
    failConfirms: 0,
    notification(options) {
      const envelope = {
        Type: 'Notification' as const,
        MessageId: options.messageId ?? randomUUID(),
        TopicArn: options.topicArn,
        ...(options.subject !== undefined ? { Subject: options.subject } : {}),
        Message: typeof options.message === 'string' ? options.message : JSON.stringify(options.message),
        Timestamp: (options.timestamp ?? new Date()).toISOString(),
        SignatureVersion: options.signatureVersion ?? '1',
        Signature: '',
        SigningCertURL: options.certUrl ?? certUrl,
        UnsubscribeURL: `https://${host}/?Action=Unsubscribe&SubscriptionArn=${options.topicArn}:2bcfbf39-05c3-41de-beaa-fcfcc21c8f55`,
      };
      return sign(envelope, options.key);
    },
    subscription({ topicArn, type = 'SubscriptionConfirmation', subscribeUrl, timestamp }) {
      const token = randomUUID().replaceAll('-', '').repeat(4);
      const envelope: SnsEnvelope = {
        Type: type,
        MessageId: randomUUID(),
        Token: token,
        TopicArn: topicArn,
        Message: type === 'SubscriptionConfirmation'
          ? `You have chosen to subscribe to the topic ${topicArn}.\nTo confirm the subscription, visit the SubscribeURL included in this message.`
          : `You have chosen to deactivate subscription ${topicArn}:2bcfbf39-05c3-41de-beaa-fcfcc21c8f55.\nTo cancel this operation and restore the subscription, visit the SubscribeURL included in this message.`,
        SubscribeURL: subscribeUrl ?? `https://${host}/?Action=ConfirmSubscription&TopicArn=${topicArn}&Token=${token}`,
        Timestamp: (timestamp ?? new Date()).toISOString(),
        SignatureVersion: '1',
        Signature: '',
        SigningCertURL: certUrl,
      };
      return sign(envelope);
    },
    sign,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return publisher;
}

/** Another https server with a certificate from the same CA, on a host:port not trusted: it records any fetch. */
export async function startOtherCertHost(): Promise<{ certUrl: string; fetches: number; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-sns-other-'));
  const certs = makeCertificates(dir);
  const other = { certUrl: '', fetches: 0, close: async () => {} };
  const server = createServer({ key: certs.serverKey, cert: certs.serverCert }, (_req, res) => {
    other.fetches++;
    res.writeHead(200).end(certs.signingCert);
  });
  other.certUrl = `https://127.0.0.1:${await listen(server)}/SimpleNotificationService-0000000000000000000000.pem`;
  other.close = async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  };
  return other;
}
