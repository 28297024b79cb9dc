/** Figures of `npm run bench:send`: CPU accounting and the printed report. */
import type autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';

export const TARGET_RATIO = 0.3;
export const TARGET_P99_MS = 25;

export interface Measurement {
  result: autocannon.Result;
  /** Server CPU time (all its threads) per answered request, in µs, when it could be read. */
  cpuPerRequestUs: number | undefined;
  /** The load generator's CPU time per request, in µs. */
  clientCpuPerRequestUs: number | undefined;
}

export interface Round {
  mailroom: Measurement;
  bare: Measurement;
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
].join(' ');

function row(round: string, name: string, { result: r, cpuPerRequestUs, clientCpuPerRequestUs }: Measurement): string {
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
  ].join(' ');
}

/** Prints every round and the medians the targets are judged on; returns whether every response was a 2xx. */
export function report(rounds: Round[], setup: { connections: number; durationS: number; warmupS: number; store: string }): boolean {
  const ratios = rounds.map((r) => r.mailroom.result.requests.average / r.bare.result.requests.average);
  const ratio = median(ratios);
  const p99 = median(rounds.map((r) => r.mailroom.result.latency.p99));
  const ratioOk = ratio >= TARGET_RATIO;
  const p99Ok = p99 < TARGET_P99_MS;

  console.log('');
  console.log(
    `POST /v1/send, 1 recipient: ${setup.connections} connections, ${rounds.length} round(s) of ${setup.durationS} s per server ` +
      `(+${setup.warmupS} s warm-up), Node ${process.version}, ${cpus().length} CPUs, store: ${setup.store}`,
  );
  console.log(HEADER);
  rounds.forEach((r, i) => {
    console.log(row(String(i + 1), 'mailroom', r.mailroom));
    console.log(row(String(i + 1), 'bare fastify', r.bare));
  });
  console.log('');
  console.log(`mailroom/bare req/s per round: ${ratios.map((x) => `${(x * 100).toFixed(1)} %`).join(', ')}`);
  console.log(
    `median req/s: mailroom ${median(rounds.map((r) => r.mailroom.result.requests.average)).toFixed(1)}, ` +
      `bare fastify ${median(rounds.map((r) => r.bare.result.requests.average)).toFixed(1)}`,
  );
  console.log(`target median mailroom/bare req/s >= ${TARGET_RATIO * 100} %: ${ratioOk ? 'PASS' : 'FAIL'} (${(ratio * 100).toFixed(1)} %)`);
  console.log(`target median mailroom p99 < ${TARGET_P99_MS} ms:        ${p99Ok ? 'PASS' : 'FAIL'} (${p99} ms)`);
  console.log(`overall: ${ratioOk && p99Ok ? 'PASS' : 'FAIL'}`);

  const clean = rounds.every(({ mailroom, bare }) => [mailroom, bare].every((m) => m.result.non2xx === 0 && m.result.errors === 0));
  if (!clean) console.error('bench: some responses were not 2xx or failed; the figures above are not trustworthy');
  return clean;
}
