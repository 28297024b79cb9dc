import { publishEvents } from '../events/index.js';
import type { MessageEvent } from '../events/index.js';
import { newId, nowIso } from '../lib/ids.js';
import { createBatchQueue } from '../db/batch-queue.js';
import type { Repositories, Store } from '../db/store.js';
import { moveSendEntry, recordComplaint, type StatusMove } from '../sending/index.js';
import type { JobResult, RecipientResult } from './delivery-attempt.js';
import { retryDelayMs, type RetryPolicy } from './retry-policy.js';
import { hourOf, type EngagementDelta } from '../tracking/index.js';

/** A tracked message's recipients handed over now: what its opens and clicks are rates of (GET /v1/send/stats/engagement). */
function trackedHandOvers({ job, results, tracked }: JobResult, now: string): EngagementDelta[] {
  if (!tracked) return [];
  const handedOver = results.filter((r) => r.outcome === 'accepted' || r.outcome === 'delivered').length;
  if (handedOver === 0) return [];
  return [{ workspace_id: job.workspace_id, hour: hourOf(now), tracked_opens: tracked.opens ? handedOver : 0, tracked_clicks: tracked.clicks ? handedOver : 0 }];
}

/** How long an outcome waits for others to share its transaction… */
export const RECORD_LINGER_MS = 20;
/** …unless this many have gathered. */
export const RECORD_MAX_BATCH = 64;

export interface RecorderOptions {
  /** The worker whose lease the jobs are under: a job taken over by another worker is left to it. */
  owner: string;
  /** The attempt's provider when the result names none (it was not handed over: suppressed, refused, not built). */
  providerName: string;
  retry: RetryPolicy;
  random?: () => number;
}

/** The status a recipient's `send` entry moves to for an outcome, or null when it stays `sent`. */
function statusMoveFor(result: RecipientResult, attempt: number, givingUp: boolean): StatusMove | null {
  switch (result.outcome) {
    case 'delivered':
      return { to: 'delivered', detail: null };
    case 'accepted':
      return null; // handed to an upstream that reports the delivery later
    case 'permanent':
      // The refusal table's subtype: an address refusal (unknown user) suppresses, a refusal of the message (spam, size) does not.
      return { to: 'bounced', detail: result.detail, bounceSubtype: result.bounceSubtype ?? 'Undetermined' };
    case 'failed':
      return { to: 'failed', detail: result.detail };
    case 'suppressed':
      return { to: 'suppressed', detail: result.detail, reason: result.reason ?? 'suppressed' };
    case 'temporary':
      return givingUp ? { to: 'failed', detail: `Gave up after ${attempt} attempts; last reply: ${result.detail}` } : null;
  }
}

/**
 * Writes what an attempt came to, all in one transaction: one attempt row per
 * recipient, each recipient's status move with its event, and the job either
 * finished or rescheduled (with backoff) for the recipients that failed for
 * now, or, when the attempts allowed have run out, those marked failed.
 * Results finishing at the same moment share the transaction (a batch queue),
 * so a busy worker commits once per batch rather than once per message.
 */
export function createOutcomeRecorder(store: Store, options: RecorderOptions) {
  const { owner, providerName, retry, random = Math.random } = options;

  /** Writes one job's outcome; the events of its status moves go into `events`, published once per transaction. */
  async function write(repos: Repositories, { job, results, raw, failedOver = [] }: JobResult, now: string, events: MessageEvent[]): Promise<void> {
    const attempt = Number(job.attempts);
    const temporary = results.filter((r) => r.outcome === 'temporary');
    const delay = temporary.length > 0 ? retryDelayMs(attempt, retry, random) : null;
    const givingUp = temporary.length > 0 && delay === null;

    await repos.deliveryAttempts.insertMany(
      [...failedOver, ...results].map((r) => ({
        id: newId('att'),
        workspace_id: r.entry.workspace_id,
        message_id: r.entry.message_id,
        recipient: r.entry.recipient,
        attempt,
        provider: r.provider ?? providerName,
        outcome: r.outcome,
        detail: r.detail,
        duration_ms: r.durationMs ?? null,
        provider_message_id: r.providerMessageId ?? null,
        upstream: r.upstream ?? null,
        created_at: now,
      })),
    );
    if (raw) await repos.messageMime.keep({ message_id: job.message_id, workspace_id: job.workspace_id, raw, created_at: now });
    for (const result of results) {
      const move = statusMoveFor(result, attempt, givingUp);
      if (!move) continue;
      const change = await moveSendEntry(repos, result.entry, move, now, { into: events });
      // Once: a re-sent message (after a crash) must not complain twice.
      if (change === 'move' && result.complaint) await recordComplaint(repos, result.entry, result.complaint, now, { into: events });
    }
    if (delay !== null) {
      const due = new Date(Date.parse(now) + delay).toISOString();
      await repos.deliveryJobs.reschedule(job.message_id, owner, due, temporary[0]!.detail, now, temporary.map((r) => r.entry.recipient));
    } else {
      await repos.deliveryJobs.complete(job.message_id, owner, now);
    }
  }

  /** The outcomes of one transaction, then their events through the event path in one pass, in order. */
  async function writeAll(repos: Repositories, results: JobResult[], now: string): Promise<void> {
    const events: MessageEvent[] = [];
    for (const result of results) await write(repos, result, now, events);
    await publishEvents(repos, events);
    await repos.engagement.add(results.flatMap((result) => trackedHandOvers(result, now)));
  }

  interface Pending {
    result: JobResult;
    resolve(): void;
    reject(error: unknown): void;
  }

  const enqueue = createBatchQueue<Pending>(
    async (batch) => {
      const now = nowIso();
      try {
        await store.transaction((repos) => writeAll(repos, batch.map((p) => p.result), now));
        for (const pending of batch) pending.resolve();
      } catch (error) {
        if (batch.length === 1) return batch[0]!.reject(error);
        // One bad result must not hold back the others: write each alone.
        for (const pending of batch) {
          await store.transaction((repos) => writeAll(repos, [pending.result], now)).then(pending.resolve, pending.reject);
        }
      }
    },
    (error, batch) => batch.forEach((pending) => pending.reject(error)),
    // Outcomes arrive one by one, as hand-overs finish: wait a moment for company, so a busy worker
    // commits (on SQLite: fsyncs) once per batch, not once per message.
    { lingerMs: RECORD_LINGER_MS, maxBatch: RECORD_MAX_BATCH },
  );

  return {
    /** Resolves once the result is committed. */
    record(result: JobResult): Promise<void> {
      return new Promise((resolve, reject) => enqueue({ result, resolve, reject }));
    },
  };
}
