import type { Resend as ResendClient } from 'resend';
import { startDnsServer, type TestDnsServer } from './dns-server.js';
import { startSmtpSink, type SmtpSink } from './smtp-sink.js';
import { createTestApp, type TestApp } from './test-app.js';
import { addVerifiedDomain } from './verified-domain.js';

const FAST = { DELIVERY_RETRY_BASE_MS: '20', DELIVERY_MAX_ATTEMPTS: '5', WORKER_POLL_MS: '20', RATE_LIMIT_SEND_PER_MIN: '100000', RATE_LIMIT_OTHER_PER_MIN: '100000' };

export interface ResendHarness {
  dns: TestDnsServer;
  sink: SmtpSink;
  t: TestApp;
  /** The SDK's class, imported once RESEND_BASE_URL points here. */
  Resend: typeof ResendClient;
  /** A client holding the workspace's full_access key. */
  resend: ResendClient;
  close(): Promise<void>;
}

/**
 * Resend's own Node SDK (the `resend` package) pointed at a listening Mailroom with RESEND_BASE_URL, as a
 * user would, the app delivering through a real SMTP server on loopback from a domain verified against a
 * real DNS server.
 */
export async function startResendHarness(domain: string): Promise<ResendHarness> {
  const dns = await startDnsServer();
  const sink = await startSmtpSink();
  const t = await createTestApp({ MAILROOM_PROVIDER: 'smtp', SMTP_URL: `smtp://127.0.0.1:${sink.port}`, DNS_SERVERS: dns.address, ...FAST }, { worker: true });
  await addVerifiedDomain(t, dns, domain);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as { port: number };
  // The SDK reads RESEND_BASE_URL when a client is made; set before the import, to be sure.
  process.env.RESEND_BASE_URL = `http://127.0.0.1:${port}/compat/resend`;
  const { Resend } = await import('resend');
  return {
    dns,
    sink,
    t,
    Resend,
    resend: new Resend(t.apiKey),
    async close() {
      delete process.env.RESEND_BASE_URL;
      await t.close();
      await sink.close();
      await dns.close();
    },
  };
}
