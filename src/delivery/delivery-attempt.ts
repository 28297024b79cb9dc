import type { AttemptOutcome, MessageAttachmentsTable, MessagesTable } from '../db/schema.js';
import type { SenderDomainCheck } from '../domains/index.js';
import type { DeliveryJob } from './delivery-jobs-repository.js';
import type { LogEntryRow } from '../logs/index.js';
import { normalizeAddress } from '../lib/email-address.js';
import { suppressedError } from '../suppressions/index.js';
import type { JobContext } from './claim-context.js';
import { SecretBoxError, type SecretBox } from '../lib/secret-box.js';
import type { Envelope, SigningDomain } from './message-builder.js';
import type { ProviderTrouble } from './provider-trouble.js';
import { handOverWithFailover, type CarriedOutcome } from './failover.js';
import type { UpstreamBreaker } from './upstream-breaker.js';
import type { UpstreamRouter } from './upstream-router.js';
import { BuilderUnavailableError, type MessageBuilder } from './threaded-message-builder.js';
import type { ReturnPathSigner } from '../inbound/index.js';
import { allRecipientsOf } from '../lib/message-recipients.js';
import type { AttachmentLoader } from './attachment-loader.js';
import { trackingBaseUrl, type MessageTracking } from '../tracking/index.js';

/** What one recipient came to in one attempt. */
export interface RecipientResult {
  entry: LogEntryRow;
  outcome: AttemptOutcome;
  detail: string;
  /** `suppressed`: the suppression list's reason. */
  reason?: string;
  /** The sandbox simulator's complaint, with its feedback type. */
  complaint?: string;
  /** How long the hand-over to the provider took, when there was one. */
  durationMs?: number;
  /** `permanent`: the bounce subtype the provider read in the refusal. */
  bounceSubtype?: string;
  /** The upstream's id for the hand-over, where it gives one (SES). */
  providerMessageId?: string;
  /** The provider (`smtp`, `ses`, `sandbox`) and the upstream (`ups_…`, `server:smtp`) it went to, when it was handed over. */
  provider?: string;
  upstream?: string;
}

/** One claimed job's attempt: what became of each recipient tried this time. */
export interface JobResult {
  job: DeliveryJob;
  results: RecipientResult[];
  /** The message as built and handed to the provider (DKIM-signed), when it got that far. */
  raw?: Buffer;
  /** Hand-overs that failed over to the next upstream: recorded as attempts only. */
  failedOver?: RecipientResult[];
  /** What was tracked of the message as built (its recipients handed over count toward the engagement rates). */
  tracked?: { opens: boolean; clicks: boolean };
}

export interface AttemptDependencies {
  /** Which upstreams a send goes through (upstream-router.ts), and whether each may be tried now (upstream-breaker.ts). */
  router: Pick<UpstreamRouter, 'routeFor'>;
  breaker: UpstreamBreaker;
  /** Signs each recipient's envelope sender (inbound/return-path.ts). */
  returnPaths: Pick<ReturnPathSigner, 'sign'>;
  /** Composes and signs (message-builder.ts), here or on a thread of its own. */
  build: MessageBuilder;
  /** The key and return-path host for the built-in sandbox sender domain, which has no domain row. */
  sandboxDomain(): Promise<SigningDomain>;
  /** Opens a domain's DKIM private key, stored sealed (secret-box.ts). */
  dkimKeys: Pick<SecretBox, 'open'>;
  /** Hears of a provider that threw instead of answering (a bug): the attempt counts as a temporary failure. */
  onProviderError(error: unknown, job: DeliveryJob): void;
  /** Hears of provider trouble that is not the recipient's fault (provider-trouble.ts). */
  trouble: Pick<ProviderTrouble, 'report'>;
  /** Reads a message's attachments within the worker's byte budget (attachment-loader.ts). */
  attachments: AttachmentLoader;
  /** DELIVERY_MAX_ATTEMPTS: a job claimed more often than this is not handed over again. */
  maxAttempts: number;
  /** The key tracked addresses are signed with and where they point (src/tracking/); without it nothing is tracked. */
  tracking?: { key: Buffer; publicOrigin: string | undefined; port: number };
}

/** A job whose remaining recipients are to be built for and handed over now. */
interface ReadyAttempt {
  job: DeliveryJob;
  message: MessagesTable;
  sender: Exclude<SenderDomainCheck, { kind: 'refused' }>;
  entries: LogEntryRow[];
  attachments: MessageAttachmentsTable[];
}

const failAll = (entries: LogEntryRow[], detail: string): RecipientResult[] => entries.map((entry) => ({ entry, outcome: 'failed', detail }));

/** Why a job claimed once more than its attempts allow is given up rather than handed over. */
export const unrecordedGiveUp = (maxAttempts: number) =>
  `Gave up after ${maxAttempts} attempts; the outcome of the last was never recorded, so it may have been delivered`;

/**
 * Takes one claimed job through the delivery checklist (DESIGN.md §3, after
 * Postal's dequeuer), each step settling some recipients and passing the rest
 * on: who is still to be tried; who is on the suppression list now; whether
 * the sender domain may still send; build and sign; hand over. What it
 * reads was read for the whole claim (claim-context.ts); the outcome recorder
 * writes what this returns.
 */
export async function attemptDelivery(job: DeliveryJob, context: JobContext, deps: AttemptDependencies): Promise<JobResult> {
  const { message, sender } = context;
  if (!message || !sender) return { job, results: [] }; // deleted with its workspace: nothing left to do

  // Recipients still `sent` (not suppressed at acceptance, not bounced since), and of those only the ones a retry is for.
  const pending = job.pending_recipients === null ? null : new Set(JSON.parse(job.pending_recipients) as string[]);
  let entries = context.entries.filter((e) => e.status === 'sent' && (pending === null || pending.has(e.recipient)));
  if (entries.length === 0) return { job, results: [] };

  const results: RecipientResult[] = [];
  entries = entries.filter((entry) => {
    const reason = context.suppressed.get(normalizeAddress(entry.recipient));
    if (reason !== undefined) results.push({ entry, outcome: 'suppressed', detail: suppressedError(reason), reason });
    return reason === undefined;
  });
  if (entries.length === 0) return { job, results };

  if (sender.kind === 'refused') return { job, results: [...results, ...failAll(entries, sender.problem)] };

  // Every claim counts an attempt, and a recorded temporary failure at the last one gives up, so a claim past the
  // cap means an attempt whose outcome was never written (the outcome's write failed, or the process died during
  // the hand-over). Handing over again would repeat the mail at each lease's end for as long as that lasts.
  if (Number(job.attempts) > deps.maxAttempts) return { job, results: [...results, ...failAll(entries, unrecordedGiveUp(deps.maxAttempts))] };

  // A message with attachments holds its share of the worker's byte budget from reading them to the hand-over's end.
  const bytes = context.attachments.reduce((sum, a) => sum + Number(a.size_bytes), 0);
  let loaded;
  try {
    loaded = context.attachments.length > 0 ? await deps.attachments.load(message.id, bytes) : undefined;
  } catch (error) {
    const detail = `Could not read the attachments: ${(error as Error).message}`;
    return { job, results: [...results, ...entries.map((entry): RecipientResult => ({ entry, outcome: 'temporary', detail }))] };
  }
  try {
    return await buildAndHandOver({ job, message, sender, entries, attachments: loaded?.rows ?? [] }, deps, results);
  } finally {
    loaded?.release();
  }
}

/** How the message is tracked, when it is: what acceptance settled for it, pointing at its domain's tracking host. */
function trackingOf(message: MessagesTable, sender: ReadyAttempt['sender'], deps: AttemptDependencies): MessageTracking | undefined {
  if (!deps.tracking || message.html === null || (message.track_opens !== 1 && message.track_clicks !== 1)) return undefined;
  const domain = sender.kind === 'verified' ? sender.row : undefined;
  return {
    opens: message.track_opens === 1,
    clicks: message.track_clicks === 1,
    baseUrl: trackingBaseUrl(deps.tracking.publicOrigin, deps.tracking.port, domain),
    key: deps.tracking.key,
  };
}

/** The last steps: build and sign, hand over, and read each recipient's outcome. */
async function buildAndHandOver(attempt: ReadyAttempt, deps: AttemptDependencies, results: RecipientResult[]): Promise<JobResult> {
  const { job, message, sender, entries, attachments } = attempt;
  let built;
  let tracking: MessageTracking | undefined;
  try {
    const signing =
      sender.kind === 'sandbox' ? await deps.sandboxDomain() : { ...sender.row, dkim_private_key: deps.dkimKeys.open(sender.row.dkim_private_key) };
    // Each recipient's return path names its place among the message's recipients, signed.
    const place = new Map(allRecipientsOf(message).map((r, index) => [r.address, index]));
    const envelopes = entries.map((e): Envelope => {
      const index = place.get(e.recipient);
      // Never another recipient's return path: reports to it would act on that recipient.
      if (index === undefined) throw new Error(`${e.recipient} is not among the message's recipients`);
      return { from: deps.returnPaths.sign(message.id, index, signing.return_path_domain), to: e.recipient, recipientIndex: index };
    });
    tracking = trackingOf(message, sender, deps);
    built = await deps.build(message, signing, envelopes, attachments, tracking);
  } catch (error) {
    const detail = `Could not build the message: ${(error as Error).message}`;
    // A builder thread that died says nothing about the message: try again later; nor does a DKIM key this
    // process cannot open (the key was rotated under it: it is retried once a process with the new key takes it).
    // Anything else would fail again.
    const outcome = error instanceof BuilderUnavailableError || error instanceof SecretBoxError ? 'temporary' : 'failed';
    return { job, results: [...results, ...entries.map((entry): RecipientResult => ({ entry, outcome, detail }))] };
  }

  let route;
  try {
    route = await deps.router.routeFor(sender);
  } catch (error) {
    const detail = `Could not open the domain's upstreams: ${(error as Error).message}`;
    return { job, results: [...results, ...entries.map((entry): RecipientResult => ({ entry, outcome: 'temporary', detail }))] };
  }
  const { outcomes, failedOver } = await handOverWithFailover(built, route, { breaker: deps.breaker, trouble: deps.trouble, onProviderError: (error) => deps.onProviderError(error, job) });
  const entryOf = new Map(entries.map((e) => [e.recipient, e]));
  const resultOf = (entry: LogEntryRow, outcome: CarriedOutcome): RecipientResult => ({
    entry, outcome: outcome.kind, detail: outcome.detail, provider: outcome.provider, upstream: outcome.upstream,
    ...(outcome.durationMs !== undefined ? { durationMs: outcome.durationMs } : {}),
    ...(outcome.complaint ? { complaint: outcome.complaint } : {}),
    ...(outcome.bounceSubtype ? { bounceSubtype: outcome.bounceSubtype } : {}),
    ...(outcome.providerMessageId ? { providerMessageId: outcome.providerMessageId } : {}),
  });
  for (const entry of entries) {
    const outcome = outcomes.get(entry.recipient);
    results.push(outcome ? resultOf(entry, outcome) : { entry, outcome: 'temporary', detail: `The provider gave no outcome for ${entry.recipient}; will retry` });
  }
  const tries = failedOver.flatMap((o) => {
    const entry = entryOf.get(o.recipient);
    return entry ? [resultOf(entry, { ...o, kind: 'temporary', detail: `${o.detail} (failed over to the next upstream)` })] : [];
  });
  return {
    job, results, raw: built.raw,
    ...(tries.length > 0 ? { failedOver: tries } : {}),
    ...(tracking ? { tracked: { opens: tracking.opens, clicks: tracking.clicks } } : {}),
  };
}
