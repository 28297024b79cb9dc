import { readFile } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import type { Logger } from 'pino';
import { ConfigError, type SubmissionSettings } from '../config.js';

export interface TlsCertificate {
  key: string | Buffer;
  cert: string | Buffer;
}

/**
 * The STARTTLS certificate: the operator's PEM files (read once, at start,
 * and checked as a pair), or else one made now for the host name, with a
 * warning: a client must then skip verification, which an attacker between
 * it and Mailroom could exploit.
 */
export async function submissionCertificate(
  settings: Pick<SubmissionSettings, 'tlsCertPath' | 'tlsKeyPath' | 'hostname'>,
  logger: Pick<Logger, 'warn'>,
): Promise<TlsCertificate> {
  if (settings.tlsCertPath !== undefined && settings.tlsKeyPath !== undefined) {
    const cert = await readPem('SUBMISSION_TLS_CERT', settings.tlsCertPath);
    const key = await readPem('SUBMISSION_TLS_KEY', settings.tlsKeyPath);
    try {
      createSecureContext({ key, cert });
    } catch (error) {
      throw new ConfigError(`Invalid configuration: SUBMISSION_TLS_CERT and SUBMISSION_TLS_KEY are not a usable certificate and key (${(error as Error).message})`);
    }
    return { key, cert };
  }
  // Loaded only here: selfsigned's ASN.1 stack costs a quarter of a second and megabytes at every start that never needs it.
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: settings.hostname }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: settings.hostname }] }],
  });
  logger.warn(
    { hostname: settings.hostname },
    'SMTP submission uses a self-signed certificate made at start: clients must skip certificate verification; set SUBMISSION_TLS_CERT and SUBMISSION_TLS_KEY',
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
