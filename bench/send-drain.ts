/** bench:send's delivery side: scraping /metrics, the backlog's drain after a burst, and the worker's rate alone. */
import { setTimeout as sleep } from 'node:timers/promises';
import { BenchError, freePort, HOST, startChild, stopChild } from './bench-process.js';
import type { Drain } from './send-report.js';

/** The longest a backlog may take to drain before the bench gives up on it. */
const DRAIN_TIMEOUT_MS = 300_000;
const POLL_MS = 200;
/** How long after the queue empties the outcome count may take to catch up with it. */
const SETTLE_MS = 5_000;

export async function scrapeMetrics(base: string, token: string): Promise<string> {
  const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new BenchError(`GET ${base}/metrics answered ${res.status}`);
  return res.text();
}

/** The sum of a metric's samples (every label set) in a Prometheus text exposition; 0 when it has none. */
export function metricValue(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== ' ' && rest[0] !== '{') continue;
    sum += Number(rest.slice(rest.lastIndexOf(' ') + 1));
  }
  return sum;
}

/**
 * Waits until the queue of the Mailroom at `base` is empty; answers how many
 * recipients were delivered meanwhile, how long it took, and the rate.
 */
export async function waitForDrain(base: string, token: string): Promise<Drain> {
  const first = await scrapeMetrics(base, token);
  const started = performance.now();
  const backlog = metricValue(first, 'mailroom_delivery_queue_jobs');
  const deliveredBefore = metricValue(first, 'mailroom_delivery_outcomes_total');
  let last = first;
  while (metricValue(last, 'mailroom_delivery_queue_jobs') > 0) {
    if (performance.now() - started > DRAIN_TIMEOUT_MS) throw new BenchError(`the backlog did not drain within ${DRAIN_TIMEOUT_MS / 1000} s`);
    await sleep(POLL_MS);
    last = await scrapeMetrics(base, token);
  }
  const seconds = (performance.now() - started) / 1000;
  // The delivery thread counts a job's outcome once its transaction is committed, and the API thread's /metrics
  // hears of it a moment later: the queue can read empty before the last batch is counted (48,452 delivered of
  // 48,460 once). Wait, within a bound, for the count to reach the backlog; the time stays the queue's.
  const settleBy = performance.now() + SETTLE_MS;
  while (metricValue(last, 'mailroom_delivery_outcomes_total') - deliveredBefore < backlog && performance.now() < settleBy) {
    await sleep(POLL_MS);
    last = await scrapeMetrics(base, token);
  }
  const delivered = metricValue(last, 'mailroom_delivery_outcomes_total') - deliveredBefore;
  return { backlog, delivered, seconds, ratePerS: delivered > 0 ? delivered / seconds : undefined };
}

/**
 * `mailroom worker` alone (no API beside it, its own priority) on a store
 * with a backlog: recipients delivered per second over `windowS`, counted
 * from its first delivery.
 */
export async function workerAloneRate(env: Record<string, string>, windowS: number): Promise<number> {
  const token = 'bench-worker-metrics-token-0123';
  const port = await freePort();
  const base = `http://${HOST}:${port}`;
  const worker = startChild('worker alone', ['bin/mailroom.js', 'worker'], { ...process.env, ...env, METRICS_PORT: String(port), METRICS_TOKEN: token });
  try {
    const deadline = performance.now() + 60_000;
    let text = '';
    for (;;) {
      text = await scrapeMetrics(base, token).catch(() => '');
      if (metricValue(text, 'mailroom_delivery_outcomes_total') > 0) break;
      if (performance.now() > deadline) throw new BenchError(`the worker delivered nothing within 60 s:\n${worker.output()}`);
      await sleep(POLL_MS);
    }
    const started = performance.now();
    const before = metricValue(text, 'mailroom_delivery_outcomes_total');
    while (performance.now() - started < windowS * 1000) {
      await sleep(POLL_MS);
      text = await scrapeMetrics(base, token);
      if (metricValue(text, 'mailroom_delivery_queue_jobs') === 0) break;
    }
    return (metricValue(text, 'mailroom_delivery_outcomes_total') - before) / ((performance.now() - started) / 1000);
  } finally {
    await stopChild(worker);
  }
}
