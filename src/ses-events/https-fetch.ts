import { request } from 'node:https';

export interface FetchOptions {
  /** Certificates to trust besides Node's (and NODE_EXTRA_CA_CERTS): for tests that run in-process. */
  ca?: string;
  timeoutMs?: number;
  maxBytes?: number;
}

/** Enough for a certificate chain or SNS's XML answer to a confirmation, and far below anything that would hurt. */
const DEFAULT_MAX_BYTES = 64 * 1024;
const DEFAULT_TIMEOUT_MS = 5_000;

/**
 * One bounded GET over https (the caller has checked the URL against
 * SES_SNS_TRUSTED_HOSTS): no redirects followed, the body capped, the whole
 * exchange timed out. Resolves with the body of a 2xx answer; rejects with
 * what went wrong, in words that carry no part of the URL's query (a
 * SubscribeURL's token).
 */
export function httpsGet(url: string, options: FetchOptions = {}): Promise<string> {
  const { timeoutMs = DEFAULT_TIMEOUT_MS, maxBytes = DEFAULT_MAX_BYTES } = options;
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', timeout: timeoutMs, ...(options.ca ? { ca: options.ca } : {}), headers: { accept: '*/*' } }, (res) => {
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        res.resume();
        reject(new Error(`it answered HTTP ${status}`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          req.destroy(new Error(`its answer is larger than ${maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`it did not answer within ${timeoutMs} ms`)));
    req.on('error', (error) => reject(new Error(error.message)));
    req.end();
  });
}
