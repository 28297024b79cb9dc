import type { BuiltMessage } from './message-builder.js';
import type { RecipientOutcome } from './provider.js';
import type { ProviderTrouble } from './provider-trouble.js';
import type { Admission, UpstreamBreaker } from './upstream-breaker.js';
import type { RoutedUpstream } from './upstream-router.js';

/** A recipient's outcome with the upstream that gave it. */
export interface CarriedOutcome extends RecipientOutcome {
  provider: string;
  upstream: string;
}

export interface HandOver {
  /** One per recipient of the message as built: where it ended up. */
  outcomes: Map<string, CarriedOutcome>;
  /** Tries that failed over to the next upstream: kept as attempts (`temporary`), never as the recipient's status. */
  failedOver: CarriedOutcome[];
}

/**
 * Trouble of the upstream's own (docs/upstreams.md#failover): a refusal of Mailroom (credentials,
 * relaying, the sender, the session), a connection that failed or timed out, TLS, throttling, a
 * server error. The refusal table and SES's error table mark each such outcome with its `problem`;
 * a recipient's refusal (an unknown mailbox, a full one, the content) never has one: it is the
 * recipient's answer, and another upstream would only bounce the mail a second time.
 */
export const failsOver = (outcome: RecipientOutcome): boolean => outcome.problem !== undefined && (outcome.kind === 'temporary' || outcome.kind === 'failed');

/**
 * Whether a failed-over outcome says the upstream is in trouble, for its circuit breaker. A relay without
 * SMTPUTF8 refuses only the addresses that need it, and takes all other mail: its recipient goes on to an
 * upstream that may have it, but the relay is not taken down for everyone by a few such addresses.
 */
const troublesUpstream = (outcome: RecipientOutcome): boolean => failsOver(outcome) && outcome.problem!.kind !== 'smtputf8';

export interface FailoverDeps {
  breaker: UpstreamBreaker;
  trouble: Pick<ProviderTrouble, 'report'>;
  /** Hears of a provider that threw instead of answering (a bug): its recipients are retried later. */
  onProviderError(error: unknown): void;
}

const downDetail = (keys: string[]) =>
  `Not handed over: every upstream of this route is down (${keys.join(', ')}); retried once one is back (docs/upstreams.md#failover)`;

const retryDetail = (keys: string[]) => `retried once ${keys.join(', ')}, down now, is back (docs/upstreams.md#failover)`;

/**
 * Hands the message to the route's upstreams in order: each takes the recipients the ones before
 * it could not carry for trouble of their own, at once rather than after a retry's wait. An
 * upstream the breaker holds down is passed by, unless it is the route's only one. Recipients no
 * upstream took keep the last upstream's outcome (a temporary one is retried with backoff), except
 * that a refusal of Mailroom is retried too while an upstream of the route was passed by as down.
 */
export async function handOverWithFailover(built: BuiltMessage, route: RoutedUpstream[], deps: FailoverDeps): Promise<HandOver> {
  const outcomes = new Map<string, CarriedOutcome>();
  const failedOver: CarriedOutcome[] = [];
  let remaining = new Set(built.envelopes.map((e) => e.to));
  const passedBy: string[] = [];
  for (const upstream of route) {
    if (remaining.size === 0) break;
    const admission: Admission = await deps.breaker.admit(upstream.key, route.length === 1);
    if (admission === 'no') {
      passedBy.push(upstream.key);
      continue;
    }
    const part: BuiltMessage = { ...built, envelopes: built.envelopes.filter((e) => remaining.has(e.to)) };
    const started = performance.now();
    let answered: RecipientOutcome[];
    try {
      answered = await upstream.provider.send(part);
    } catch (error) {
      deps.onProviderError(error);
      answered = part.envelopes.map((e) => ({ recipient: e.to, kind: 'temporary', detail: 'The provider failed unexpectedly; will retry' }));
    }
    const durationMs = Math.round(performance.now() - started);
    const next = new Set<string>();
    let trouble: RecipientOutcome | undefined;
    for (const outcome of answered) {
      if (!remaining.has(outcome.recipient)) continue;
      if (outcome.problem) deps.trouble.report(upstream.provider.name, outcome.problem, outcome.kind === 'failed');
      const carried: CarriedOutcome = { durationMs, ...outcome, provider: upstream.provider.name, upstream: upstream.key };
      const earlier = outcomes.get(outcome.recipient);
      if (earlier) failedOver.push(earlier);
      outcomes.set(outcome.recipient, carried);
      if (failsOver(outcome)) next.add(outcome.recipient);
      if (troublesUpstream(outcome)) trouble ??= outcome;
    }
    // An upstream that carried part of the message (a relay refusing some destinations, SES throttling some sends)
    // is working: its refused recipients go on to the next upstream, but the breaker hears an answer. Told both,
    // the breaker would take it down and straight up again on every fifth such message, telling both each time.
    if (answered.some((o) => !troublesUpstream(o))) await deps.breaker.answered(upstream.key);
    else if (trouble) await deps.breaker.failed(upstream.key, trouble.problem!.reply || trouble.detail, admission);
    // Recipients the upstream gave no outcome for stay to be tried by the next.
    for (const recipient of remaining) if (!outcomes.has(recipient)) next.add(recipient);
    remaining = next;
  }
  for (const recipient of remaining) {
    const last = outcomes.get(recipient);
    if (!last) outcomes.set(recipient, { recipient, kind: 'temporary', detail: downDetail(passedBy), provider: route[0]!.provider.name, upstream: route[0]!.key });
    // Refused by the upstreams tried while another of the route sat out its down time: that one may carry it once back,
    // as it would have had the refusals come after it went down (every upstream down: retried). Not the end of it.
    else if (last.kind === 'failed' && passedBy.length > 0) outcomes.set(recipient, { ...last, kind: 'temporary', detail: `${last.detail}; ${retryDetail(passedBy)}` });
  }
  return { outcomes, failedOver };
}
