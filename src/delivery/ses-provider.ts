import type { SESv2Client } from '@aws-sdk/client-sesv2';
import type { Logger } from 'pino';
import type { SesSettings } from '../lib/config-settings.js';
import type { Store } from '../db/store.js';
import type { BuiltMessage, Envelope } from './message-builder.js';
import { rawFor, type Provider, type RecipientOutcome } from './provider.js';
import { refusesCredentials, sesOutcome } from './ses-outcome.js';
import { createSendRate, type SlotClaimer } from './send-rate.js';

/** A silent endpoint is a temporary failure, not a hang: bounds on connecting and on the whole answer. */
export const SES_CONNECTION_TIMEOUT_MS = 10_000;
export const SES_REQUEST_TIMEOUT_MS = 30_000;
/** How often the account's MaxSendRate is read again (GetAccount), unless SES_MAX_SEND_RATE fixes it. */
export const SES_RATE_REFRESH_MS = 10 * 60_000;
/** The rate used when GetAccount fails at start: the SES sandbox's. */
export const SES_FALLBACK_RATE = 1;
/** The shared rate's name in send_slots (and its Redis key). */
export const SES_SLOTS = 'ses';

export interface SesProviderOptions {
  settings: Pick<SesSettings, 'region' | 'endpoint' | 'configurationSet' | 'maxSendRate'>;
  store: Store;
  /** Where the rate's slots are kept: the store's send_slots by default, Redis with REDIS_URL. */
  slots: SlotClaimer;
  logger: Pick<Logger, 'info' | 'warn'>;
  /** A workspace upstream's own keys; the server's SES provider uses the AWS SDK's standard chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /**
   * Where a refusal of the credentials is noted for /readyz (provider_refusals): `ses` for the
   * server's; null for a workspace's, whose refusal is its own page's to tell, never the server's readiness.
   */
  refusalKey?: string | null;
  timeouts?: { connectionMs: number; requestMs: number };
}

/**
 * Sends through the SES v2 API: one SendEmail per recipient with `Content.Raw` (Mailroom's own MIME
 * and DKIM signature, so a message is the same bytes whatever carries it), `Destination` naming that
 * recipient alone (a Bcc recipient is never in a header) and `FromEmailAddress` the From header's
 * address, the identity SES checks. SES sets its own MAIL FROM (or the identity's custom MAIL FROM
 * domain): the per-recipient return path does not apply, and SES's events come through SNS. Region
 * and credentials are the AWS SDK's standard chain; the SDK's own retries are off, since the worker
 * retries with backoff. Hand-overs are paced at the account's MaxSendRate across every worker.
 */
export function createSesProvider(options: SesProviderOptions): Provider {
  const { settings, store, logger } = options;
  const rate = createSendRate(options.slots, settings.maxSendRate ?? SES_FALLBACK_RATE);
  let refreshTimer: NodeJS.Timeout | undefined;
  /** Whether this process last wrote a refusal of credentials: unknown at start, so the first accepted send clears any. */
  let refusalWritten: boolean | undefined;

  const ready = (async () => {
    // Loaded with the provider only: the SDK is heavy, and other providers never use it.
    const sdk = await import('@aws-sdk/client-sesv2');
    const client: SESv2Client = new sdk.SESv2Client({
      ...(settings.region ? { region: settings.region } : {}),
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      ...(options.credentials ? { credentials: options.credentials } : {}),
      maxAttempts: 1,
      requestHandler: {
        connectionTimeout: options.timeouts?.connectionMs ?? SES_CONNECTION_TIMEOUT_MS,
        requestTimeout: options.timeouts?.requestMs ?? SES_REQUEST_TIMEOUT_MS,
        // Without it, a request past its timeout is only warned about, and waits on.
        throwOnRequestTimeout: true,
      },
    });
    const host = settings.endpoint ? new URL(settings.endpoint).host : `email.${await client.config.region()}.amazonaws.com`;
    if (settings.maxSendRate === undefined) {
      await readRate(client, host, true);
      refreshTimer = setInterval(() => void readRate(client, host, false), SES_RATE_REFRESH_MS);
      refreshTimer.unref();
    }
    return { client, host, sdk };
  })();
  // A failure here is every send's to tell: it is not left unhandled meanwhile.
  ready.catch(() => undefined);

  async function readRate(client: SESv2Client, host: string, atStart: boolean): Promise<void> {
    const { GetAccountCommand } = await import('@aws-sdk/client-sesv2');
    try {
      const account = await client.send(new GetAccountCommand({}));
      const maxSendRate = account.SendQuota?.MaxSendRate;
      if (maxSendRate && maxSendRate > 0 && maxSendRate !== rate.perSecond) {
        rate.setRate(maxSendRate);
        logger.info({ host, maxSendRate }, "sending at the SES account's MaxSendRate");
      }
    } catch (error) {
      const reason = `${(error as Error).name}: ${(error as Error).message}`;
      if (refusesCredentials(error)) await noteRefusal(`Amazon SES (${host}) refused Mailroom's credentials when reading the account: ${reason}`);
      logger.warn(
        { host, reply: reason, sendRate: rate.perSecond },
        atStart ? `could not read the SES account's MaxSendRate; sending at ${rate.perSecond}/s until it can be read (or set SES_MAX_SEND_RATE)` : 'could not read the SES account\'s MaxSendRate again; keeping the last one',
      );
    }
  }

  const refusalKey = options.refusalKey === undefined ? SES_SLOTS : options.refusalKey;

  async function noteRefusal(reason: string): Promise<void> {
    if (refusalKey === null) return;
    await store.providerState.markRefused(refusalKey, reason, new Date().toISOString()).catch(() => undefined);
    refusalWritten = true;
  }

  async function noteAccepted(): Promise<void> {
    if (refusalWritten === false || refusalKey === null) return;
    await store.providerState.clearRefused(refusalKey).catch(() => undefined);
    refusalWritten = false;
  }

  async function sendOne(message: BuiltMessage, envelope: Envelope): Promise<RecipientOutcome> {
    const { to } = envelope;
    const started = performance.now();
    let host = settings.endpoint ? new URL(settings.endpoint).host : 'email.amazonaws.com';
    let outcome: RecipientOutcome;
    let sdk;
    try {
      sdk = await ready;
      host = sdk.host;
      await rate.take();
    } catch (error) {
      return { recipient: to, kind: 'temporary', detail: `Could not take a turn at the SES send rate: ${(error as Error).message}`, durationMs: Math.round(performance.now() - started) };
    }
    try {
      const sent = await sdk.client.send(
        new sdk.sdk.SendEmailCommand({
          FromEmailAddress: message.fromAddress,
          Destination: { ToAddresses: [to] },
          Content: { Raw: { Data: rawFor(message, envelope) } },
          ...(settings.configurationSet ? { ConfigurationSetName: settings.configurationSet } : {}),
        }),
      );
      // Handed over, not yet delivered: SES's events (SNS) tell that later.
      outcome = { recipient: to, kind: 'accepted', detail: `Accepted by Amazon SES as ${sent.MessageId}`, ...(sent.MessageId ? { providerMessageId: sent.MessageId } : {}) };
      await noteAccepted();
    } catch (error) {
      outcome = sesOutcome(to, error, host);
      if (outcome.problem?.kind === 'auth') await noteRefusal(outcome.detail);
    }
    return { ...outcome, durationMs: Math.round(performance.now() - started) };
  }

  return {
    name: 'ses',
    async verify() {
      const { client, sdk } = await ready;
      await client.send(new sdk.GetAccountCommand({}));
    },
    async send(message: BuiltMessage): Promise<RecipientOutcome[]> {
      // Side by side: the shared rate orders them.
      return Promise.all(message.envelopes.map((envelope) => sendOne(message, envelope)));
    },
    async close() {
      clearInterval(refreshTimer);
      await rate.close();
      const sdk = await ready.catch(() => undefined);
      sdk?.client.destroy();
    },
  };
}
