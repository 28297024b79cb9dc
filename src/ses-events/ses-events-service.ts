import type { Logger } from 'pino';
import type { Store } from '../db/store.js';
import type { SesNotification } from '../inbound/index.js';
import type { SesSettings } from '../lib/config-settings.js';
import { ForbiddenError } from '../lib/errors.js';
import { nowIso } from '../lib/ids.js';
import { httpsGet } from './https-fetch.js';
import { applySesEvent, type SesEventOutcome } from './ses-event-applier.js';
import { readSesEvent } from './ses-event-reader.js';
import { readEnvelope, type SnsEnvelope } from './sns-envelope.js';
import { createSignatureChecker } from './sns-signature.js';
import { untrustedUrlReason } from './trusted-hosts.js';

/** A notification that failed a check: 403 in SPEC's error envelope (http/error-handler.ts). */
export class SnsNotificationRefusedError extends ForbiddenError {}

/** SNS's own rule of thumb for a replayed notification: one stamped further than this from now is refused. */
export const MAX_TIMESTAMP_SKEW_MS = 60 * 60 * 1000;
/** How long a notification may stay `received` before the periodic pass takes it as stranded (its process died after answering). */
const STRANDED_AFTER_MS = 30_000;
const PASS_INTERVAL_MS = 60_000;
const PASS_BATCH = 100;
/** Kept this long for an operator; a replay needs them only for MAX_TIMESTAMP_SKEW_MS. */
const KEEP_NOTIFICATIONS_MS = 7 * 24 * 60 * 60 * 1000;
/** When a failed SubscribeURL fetch is tried again, before the periodic pass takes over. */
const CONFIRM_RETRY_MS = [1_000, 5_000, 30_000];

export interface ReceiveResult {
  message_id: string;
  /** `received`: recorded, applied right after the answer; `duplicate`: seen before; `confirming`, `logged`: subscription messages. */
  outcome: 'received' | 'duplicate' | 'confirming' | 'logged';
}

export interface SesEventsOptions {
  log: Logger;
  /** Certificates to trust besides Node's and NODE_EXTRA_CA_CERTS (in-process tests). */
  ca?: string;
  /** How work after the answer is started: on the next turn of the event loop by default. */
  schedule?: (work: () => Promise<unknown>) => void;
}

/**
 * SES's events through SNS (POST /v1/inbound/ses). `receive` does, before
 * the answer, only what decides it: the checks (topic, timestamp, certificate
 * host, signature) and one insert keyed by SNS's MessageId, which makes a
 * replay a no-op and the notification durable. Applying it comes after, in a
 * transaction that first takes the row from `received`: a process that dies
 * between the two leaves the row for the periodic pass (`start`), and two
 * processes never apply one notification twice.
 */
export function createSesEventsService(store: Store, settings: SesSettings, options: SesEventsOptions) {
  const { log, ca } = options;
  const topics = new Set(settings.snsTopicArns);
  const hosts = settings.snsTrustedHosts;
  const checker = createSignatureChecker({ trustedHosts: hosts, ca });
  const inFlight = new Set<Promise<unknown>>();
  const timers = new Set<NodeJS.Timeout>();
  const track = (work: () => Promise<unknown>) => {
    const running = work().finally(() => inFlight.delete(running));
    inFlight.add(running);
  };
  const schedule = options.schedule ?? ((work) => void setImmediate(() => track(work)));

  function refuse(reason: string, envelope?: SnsEnvelope): never {
    log.warn({ topic_arn: envelope?.TopicArn, sns_message_id: envelope?.MessageId, reason }, 'SNS notification refused');
    throw new SnsNotificationRefusedError(`SNS notification refused: ${reason}`);
  }

  async function check(body: unknown): Promise<SnsEnvelope> {
    if (topics.size === 0) {
      log.warn('SNS notification refused: SES_SNS_TOPIC_ARNS is not set, so POST /v1/inbound/ses accepts no topic (see docs/ses-notifications.md)');
      throw new SnsNotificationRefusedError('SNS notification refused: SES_SNS_TOPIC_ARNS is not set on this installation');
    }
    const read = readEnvelope(body);
    if ('refused' in read) refuse(read.refused);
    const { envelope } = read;
    if (!topics.has(envelope.TopicArn)) refuse('its TopicArn is not one of SES_SNS_TOPIC_ARNS', envelope);
    const at = Date.parse(envelope.Timestamp);
    if (Number.isNaN(at)) refuse('its Timestamp is not a date', envelope);
    if (Math.abs(Date.now() - at) > MAX_TIMESTAMP_SKEW_MS) refuse('its Timestamp is more than an hour from now', envelope);
    if (envelope.Type === 'SubscriptionConfirmation') {
      const untrusted = untrustedUrlReason(envelope.SubscribeURL!, hosts);
      if (untrusted) refuse(`its SubscribeURL is refused: ${untrusted}`, envelope);
    }
    const signature = await checker.refusal(envelope);
    if (signature) refuse(signature, envelope);
    return envelope;
  }

  async function receive(body: unknown): Promise<ReceiveResult> {
    const envelope = await check(body);
    const { MessageId: id, TopicArn: topic, Type: type } = envelope;
    const now = nowIso();
    if (type === 'UnsubscribeConfirmation') {
      const first = await store.sns.claim({ id, topic_arn: topic, type, message: envelope.Message, state: 'applied', outcome: JSON.stringify({ logged: true }), received_at: now, applied_at: now });
      // Never fetched: confirming it would unsubscribe, and the operator may want the subscription back.
      if (first) log.warn({ topic_arn: topic }, 'SNS says this endpoint is unsubscribed from the topic: SES events from it stop until it is subscribed again');
      return { message_id: id, outcome: first ? 'logged' : 'duplicate' };
    }
    if (type === 'SubscriptionConfirmation') {
      const first = await store.transaction(async (repos) => {
        const claimed = await repos.sns.claim({ id, topic_arn: topic, type, message: envelope.Message, state: 'applied', outcome: JSON.stringify({ confirmation: 'requested' }), received_at: now, applied_at: now });
        if (claimed) await repos.sns.requestConfirmation(topic, envelope.SubscribeURL!, now);
        return claimed;
      });
      if (first) {
        log.info({ topic_arn: topic, host: new URL(envelope.SubscribeURL!).host }, 'SNS subscription confirmation requested: confirming it');
        schedule(() => confirm(topic));
      }
      return { message_id: id, outcome: first ? 'confirming' : 'duplicate' };
    }
    const first = await store.sns.claim({ id, topic_arn: topic, type, message: envelope.Message, state: 'received', received_at: now });
    if (first) schedule(() => apply(id));
    return { message_id: id, outcome: first ? 'received' : 'duplicate' };
  }

  /** Applies a received notification; undefined when it was not `received` (done already, by this process or another) or failed. */
  async function apply(id: string): Promise<SesEventOutcome | undefined> {
    try {
      const outcome = await store.transaction(async (repos) => {
        const now = nowIso();
        const row = await repos.sns.take(id, now);
        if (!row) return undefined;
        const notification = parseSesJson(row.message);
        const result: SesEventOutcome = notification
          ? await applySesEvent(repos, readSesEvent(notification), now)
          : { outcome: 'ignored', event: '', message_id: null, reason: "the notification's Message is not SES event JSON", recipients: [] };
        await repos.sns.recordOutcome(id, JSON.stringify(result));
        return result;
      });
      if (outcome) log.info({ sns_message_id: id, ses_event: outcome.event, message_id: outcome.message_id, reason: outcome.reason, recipients: outcome.recipients }, `SES event ${outcome.outcome}`);
      return outcome;
    } catch (error) {
      log.error({ err: error, sns_message_id: id }, 'applying an SES event failed; it is tried again later');
      await store.sns.recordFailure(id, (error as Error).message).catch(() => undefined);
      return undefined;
    }
  }

  /** Fetches a pending subscription's SubscribeURL; on failure tries again after CONFIRM_RETRY_MS, then at each periodic pass. */
  async function confirm(topic: string, retry = 0): Promise<boolean> {
    const subscription = await store.sns.findSubscription(topic);
    if (!subscription || subscription.state !== 'pending') return true;
    try {
      const untrusted = untrustedUrlReason(subscription.subscribe_url, hosts);
      if (untrusted) throw new Error(untrusted);
      await httpsGet(subscription.subscribe_url, { ca });
      await store.sns.markConfirmed(topic, subscription.subscribe_url, nowIso());
      log.info({ topic_arn: topic }, 'SNS subscription confirmed');
      return true;
    } catch (error) {
      const message = (error as Error).message;
      await store.sns.recordConfirmFailure(topic, subscription.subscribe_url, message);
      log.warn({ topic_arn: topic, err: message }, 'confirming the SNS subscription failed; it is tried again');
      const wait = CONFIRM_RETRY_MS[retry];
      if (wait !== undefined) later(wait, () => confirm(topic, retry + 1));
      return false;
    }
  }

  function later(ms: number, work: () => Promise<unknown>): void {
    const timer = setTimeout(() => {
      timers.delete(timer);
      track(work);
    }, ms);
    timer.unref();
    timers.add(timer);
  }

  /** Stranded notifications applied, pending confirmations tried again, old notifications dropped. */
  async function pass(now = new Date()): Promise<void> {
    for (const id of await store.sns.listReceived(new Date(now.getTime() - STRANDED_AFTER_MS).toISOString(), PASS_BATCH)) await apply(id);
    for (const subscription of await store.sns.listPending()) await confirm(subscription.topic_arn, CONFIRM_RETRY_MS.length);
    await store.sns.pruneBefore(new Date(now.getTime() - KEEP_NOTIFICATIONS_MS).toISOString());
  }

  return {
    receive,
    apply,
    pass,
    /** Topics whose subscription is not confirmed yet (GET /readyz). */
    async pendingConfirmations(): Promise<string[]> {
      return (await store.sns.listPending()).map((s) => s.topic_arn);
    },
    /** The periodic pass, now and every minute, until `stop`. */
    start(): void {
      const run = () =>
        track(() => pass().catch((error: unknown) => log.error({ err: error }, 'the SES events pass failed; it runs again in a minute')));
      run();
      const timer = setInterval(run, PASS_INTERVAL_MS);
      timer.unref();
      timers.add(timer);
    },
    /** Stops the pass and the retries, and waits for work in flight. */
    async stop(): Promise<void> {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.allSettled([...inFlight]);
    },
  };
}

function parseSesJson(text: string): SesNotification | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as SesNotification) : null;
  } catch {
    return null;
  }
}

export type SesEventsService = ReturnType<typeof createSesEventsService>;
