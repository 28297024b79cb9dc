import { readFile } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import type { Logger } from 'pino';
import { ConfigError, type SubmissionSettings } from '../config.js';

export interface TlsCertificate {
  key: string | Buffer;
  cert: string | Buffer;
}

/**
 * The operator's STARTTLS certificate: the PEM files, read once, at start, and
 * checked as a pair; undefined when none is configured (selfSignedCertificate
 * below is made instead, when a client first needs it).
 */
export async function configuredCertificate(settings: Pick<SubmissionSettings, 'tlsCertPath' | 'tlsKeyPath'>): Promise<TlsCertificate | undefined> {
  if (settings.tlsCertPath === undefined || settings.tlsKeyPath === undefined) return undefined;
  const cert = await readPem('SUBMISSION_TLS_CERT', settings.tlsCertPath);
  const key = await readPem('SUBMISSION_TLS_KEY', settings.tlsKeyPath);
  try {
    createSecureContext({ key, cert });
  } catch (error) {
    throw new ConfigError(`Invalid configuration: SUBMISSION_TLS_CERT and SUBMISSION_TLS_KEY are not a usable certificate and key (${(error as Error).message})`);
  }
  return { key, cert };
}

/**
 * A certificate made now for the host name, with a warning: a client must
 * then skip verification, which an attacker between it and Mailroom could
 * exploit. Made at the first connection rather than at start: the RSA key and
 * selfsigned's ASN.1 stack cost a second of CPU and megabytes of memory that a
 * start, and an installation that never uses submission, need not pay.
 */
export async function selfSignedCertificate(settings: Pick<SubmissionSettings, 'hostname'>, logger: Pick<Logger, 'warn'>): Promise<TlsCertificate> {
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: settings.hostname }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: settings.hostname }] }],
  });
  logger.warn(
    { hostname: settings.hostname },
    'SMTP submission uses a self-signed certificate, made for its first client: clients must skip certificate verification; set SUBMISSION_TLS_CERT and SUBMISSION_TLS_KEY',
  );
  return { key: pems.private, cert: pems.cert };
}

async function readPem(variable: string, path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    throw new ConfigError(`Invalid configuration: ${variable} cannot be read (${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}
