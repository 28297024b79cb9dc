/** Figures of `npm run bench:send`: CPU accounting and the printed report. */
import type autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { EVENT_LOOP_SAMPLE_MS } from '../src/observability/metrics.js';

/** Issue 19's targets, as deployed: share of the bare route's req/s and p99, by store. */
const TARGETS = {
  sqlite: { ratio: 0.3, p99Ms: 25 },
  postgres: { ratio: 0.15, p99Ms: 50 },
};
/** The API thread's event-loop delay during a burst (p99). */
export const TARGET_EVENT_LOOP_P99_MS = 20;
/** The backlog's drain after a burst, against the worker's rate alone. */
export const TARGET_DRAIN_SHARE = 0.9;

export interface Measurement {
  result: autocannon.Result;
  /** Server CPU time (all its threads) per answered request, in µs, when it could be read. */
  cpuPerRequestUs: number | undefined;
  /** The load generator's CPU time per request, in µs. */
  clientCpuPerRequestUs: number | undefined;
  /** The server's nodejs_eventloop_lag_p99_seconds as scraped after the measurement, in ms (eventLoopDelayMs: the delay it stands for). */
  eventLoopLagReadingMs?: number;
}

export interface Round {
  /** As deployed: serve with its worker delivering. */
  mailroom: Measurement;
  /** The same build with WORKER_ENABLED=false. */
  workerOff: Measurement;
  bare: Measurement;
}

/** The deployed server's backlog after a burst, delivered. */
export interface Drain {
  backlog: number;
  delivered: number;
  seconds: number;
  ratePerS: number | undefined;
}

/** Clock ticks per second of /proc's CPU times (almost always 100). */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * CPU seconds (user + system, all threads) a process has used so far, from
 * /proc; undefined where there is no /proc. It moves less than req/s with what
 * else the machine is doing, so it shows whether a change made the server cheaper.
 */
export function cpuSecondsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/**
 * Bytes the process (all its threads) has caused to be written to disk so far: /proc's write_bytes, which a
 * commit's WAL pages and a checkpoint's copies count in, whatever the noise in its CPU time. Undefined without /proc.
 */
export function diskBytesWrittenOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const line = readFileSync(`/proc/${pid}/io`, 'utf8').split('\n').find((l) => l.startsWith('write_bytes:'));
    return line === undefined ? undefined : Number(line.slice('write_bytes:'.length));
  } catch {
    return undefined;
  }
}

/** What two readings of a counter moved by, a request, times `scale`; undefined without either reading or without requests. */
export function perRequest(before: number | undefined, after: number | undefined, requests: number, scale = 1): number | undefined {
  return before === undefined || after === undefined || requests === 0 ? undefined : ((after - before) / requests) * scale;
}

/** Server CPU µs a request from two cpuSecondsOf readings; undefined without /proc or without requests. */
export function cpuPerRequestUs(before: number | undefined, after: number | undefined, requests: number): number | undefined {
  return perRequest(before, after, requests, 1e6);
}

/**
 * The event-loop delay (p99, ms) a measurement's lag reading stands for: the reading less the sampling interval it
 * includes, the time between two timer ticks EVENT_LOOP_SAMPLE_MS apart (until 2026-11-29 this benchmark printed
 * and judged the reading itself, 10 ms above the delay). Undefined when nothing was scraped.
 */
function eventLoopDelayMs({ eventLoopLagReadingMs: reading }: Measurement): number | undefined {
  return reading === undefined ? undefined : Math.max(0, reading - EVENT_LOOP_SAMPLE_MS);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const micros = (value: number | undefined) => (value === undefined ? 'n/a' : value.toFixed(0));
const HEADER = [
  'round'.padEnd(6),
  'server'.padEnd(13),
  'req/s (avg)'.padStart(12),
  'p50 ms'.padStart(7),
  'p99 ms'.padStart(7),
  'requests'.padStart(9),
  'non-2xx'.padStart(8),
  'errors'.padStart(7),
  'timeouts'.padStart(9),
  'server CPU µs/req'.padStart(18),
  'client CPU µs/req'.padStart(18),
  'loop p99 ms'.padStart(12),
  'lag metric ms'.padStart(14),
].join(' ');

function row(round: string, name: string, measurement: Measurement): string {
  const { result: r, cpuPerRequestUs, clientCpuPerRequestUs, eventLoopLagReadingMs } = measurement;
  const eventLoopP99Ms = eventLoopDelayMs(measurement);
  return [
    round.padEnd(6),
    name.padEnd(13),
    r.requests.average.toFixed(1).padStart(12),
    String(r.latency.p50).padStart(7),
    String(r.latency.p99).padStart(7),
    String(r.requests.total).padStart(9),
    String(r.non2xx).padStart(8),
    String(r.errors).padStart(7),
    String(r.timeouts).padStart(9),
    micros(cpuPerRequestUs).padStart(18),
    micros(clientCpuPerRequestUs).padStart(18),
    (eventLoopP99Ms === undefined ? '' : eventLoopP99Ms.toFixed(1)).padStart(12),
    (eventLoopLagReadingMs === undefined ? '' : eventLoopLagReadingMs.toFixed(1)).padStart(14),
  ].join(' ');
}

const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
const percent = (x: number) => `${(x * 100).toFixed(1)} %`;

/** Prints every round and the medians the targets are judged on; returns whether every response was a 2xx. */
export function report(
  rounds: Round[],
  drains: Drain[],
  aloneRatePerS: number,
  setup: { connections: number; durationS: number; warmupS: number; store: string; provider: string },
): boolean {
  const target = setup.store === 'PostgreSQL' ? TARGETS.postgres : TARGETS.sqlite;
  const ratios = rounds.map((r) => r.mailroom.result.requests.average / r.bare.result.requests.average);
  const offRatios = rounds.map((r) => r.workerOff.result.requests.average / r.bare.result.requests.average);
  const ratio = median(ratios);
  const p99 = median(rounds.map((r) => r.mailroom.result.latency.p99));
  const loopP99 = median(rounds.map((r) => eventLoopDelayMs(r.mailroom) ?? Number.NaN));
  const lagReading = median(rounds.map((r) => r.mailroom.eventLoopLagReadingMs ?? Number.NaN));
  const drainRate = median(drains.map((d) => d.ratePerS ?? 0));
  const checks = [
    { ok: ratio >= target.ratio, line: `as deployed, median mailroom/bare req/s >= ${target.ratio * 100} %: %V (${percent(ratio)})` },
    { ok: p99 < target.p99Ms, line: `as deployed, median mailroom p99 < ${target.p99Ms} ms: %V (${p99} ms)` },
    { ok: loopP99 < TARGET_EVENT_LOOP_P99_MS, line: `as deployed, API event-loop delay p99 during the burst < ${TARGET_EVENT_LOOP_P99_MS} ms: %V (${loopP99.toFixed(1)} ms; the lag metric read ${lagReading.toFixed(1)} ms)` },
    {
      ok: drainRate >= TARGET_DRAIN_SHARE * aloneRatePerS,
      line: `backlog drain after the burst >= ${TARGET_DRAIN_SHARE * 100} % of the worker alone: %V (${drainRate.toFixed(0)}/s against ${aloneRatePerS.toFixed(0)}/s, ${percent(drainRate / aloneRatePerS)})`,
    },
  ];

  console.log('');
  console.log(
    `POST /v1/send, 1 recipient: ${setup.connections} connections, ${rounds.length} round(s) of ${setup.durationS} s per server ` +
      `(+${setup.warmupS} s warm-up), Node ${process.version}, ${cpus().length} CPUs, store: ${setup.store}`,
  );
  const provider = setup.provider === 'smtp' ? "SMTP provider relaying to Postfix's smtp-sink, DKIM-signed" : 'sandbox provider';
  console.log(`mailroom = as deployed (npm start: serve with its delivery thread delivering, ${provider}); worker off = WORKER_ENABLED=false`);
  console.log(HEADER);
  // In the order they were measured (send.ts): the bare route between the two Mailroom servers.
  rounds.forEach((r, i) => {
    console.log(row(String(i + 1), 'worker off', r.workerOff));
    console.log(row(String(i + 1), 'bare fastify', r.bare));
    console.log(row(String(i + 1), 'mailroom', r.mailroom));
  });
  console.log(`loop p99 = the API thread's event-loop delay: nodejs_eventloop_lag_p99 (lag metric) less the ${EVENT_LOOP_SAMPLE_MS} ms between the timer ticks it measures`);
  console.log('');
  drains.forEach((d, i) =>
    console.log(`round ${i + 1}: backlog after the burst ${d.backlog} jobs, ${d.delivered} recipients delivered in ${d.seconds.toFixed(1)} s (${d.ratePerS?.toFixed(0) ?? 'n/a'}/s)`),
  );
  console.log(`worker alone (mailroom worker, no API beside it): ${aloneRatePerS.toFixed(0)} recipients/s`);
  console.log('');
  console.log(`mailroom/bare req/s per round:   ${ratios.map(percent).join(', ')}`);
  console.log(`worker off/bare req/s per round: ${offRatios.map(percent).join(', ')}`);
  console.log(
    `median req/s: mailroom ${median(rounds.map((r) => r.mailroom.result.requests.average)).toFixed(1)}, ` +
      `worker off ${median(rounds.map((r) => r.workerOff.result.requests.average)).toFixed(1)}, ` +
      `bare fastify ${median(rounds.map((r) => r.bare.result.requests.average)).toFixed(1)}`,
  );
  for (const check of checks) console.log(`target ${check.line.replace('%V', verdict(check.ok))}`);
  console.log(`overall: ${verdict(checks.every((c) => c.ok))}`);

  const clean = rounds.every((r) => [r.mailroom, r.workerOff, r.bare].every((m) => m.result.non2xx === 0 && m.result.errors === 0));
  if (!clean) console.error('bench: some responses were not 2xx or failed; the figures above are not trustworthy');
  return clean;
}
