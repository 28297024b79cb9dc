/**
 * `npm run bench:scrape`: what a Prometheus scrape of `GET /metrics` costs the
 * sends beside it when the queue is deep. `mailroom serve` as `npm start` runs
 * it (worker on, sandbox provider), holding a backlog of BENCH_BACKLOG sends
 * scheduled for tomorrow (real jobs, left pending by the worker), answers
 * one-recipient sends on 10 connections, in alternating rounds without and
 * with a scrape every BENCH_SCRAPE_MS. The store-wide gauges count up to
 * 100,000 pending jobs at each scrape. See bench/README.md.
 */
import autocannon from 'autocannon';
import { BENCH_METRICS_TOKEN as METRICS_TOKEN, oneRecipientSend, openSendBenchStore } from './send-bench-store.js';
import { BenchError, freePort, HOST, positiveNumber, READY_TIMEOUT_MS, runBench, startChild, stopChild, waitReady } from './bench-process.js';
import { median } from './send-report.js';

const DURATION_S = positiveNumber('BENCH_DURATION', 8);
const ROUNDS = Math.floor(positiveNumber('BENCH_ROUNDS', 2));
const CONNECTIONS = positiveNumber('BENCH_CONNECTIONS', 10);
const BACKLOG = Math.floor(positiveNumber('BENCH_BACKLOG', 100_000));
const SCRAPE_EVERY_MS = positiveNumber('BENCH_SCRAPE_MS', 250);
const BATCH = 100;

const SEND = oneRecipientSend();
const SEND_BODY = JSON.stringify(SEND);

/** BACKLOG sends scheduled for tomorrow, through the batch endpoint, 8 batches at a time. */
async function fillBacklog(base: string, headers: Record<string, string>): Promise<void> {
  const scheduled_at = new Date(Date.now() + 86_400_000).toISOString();
  let left = Math.ceil(BACKLOG / BATCH);
  const poster = async () => {
    while (left-- > 0) {
      const body = JSON.stringify(Array.from({ length: BATCH }, () => ({ ...SEND, scheduled_at })));
      const res = await fetch(`${base}/v1/send/batch`, { method: 'POST', headers, body, signal: AbortSignal.timeout(30_000) });
      if (res.status !== 200) throw new BenchError(`POST /v1/send/batch answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 8 }, poster));
}

async function scrape(base: string): Promise<string> {
  const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` }, signal: AbortSignal.timeout(30_000) });
  if (res.status !== 200) throw new BenchError(`GET /metrics answered ${res.status}`);
  return res.text();
}

interface Run {
  round: number;
  scraping: boolean;
  rate: number;
  p50: number;
  p99: number;
  max: number;
  failed: number;
  scrapes: number[];
}

async function measure(base: string, headers: Record<string, string>, round: number, scraping: boolean): Promise<Run> {
  let stop = false;
  const scrapes: number[] = [];
  const scraper = (async () => {
    while (scraping && !stop) {
      const started = performance.now();
      await scrape(base);
      scrapes.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, SCRAPE_EVERY_MS));
    }
  })();
  const result = await autocannon({ url: `${base}/v1/send`, method: 'POST', headers, body: SEND_BODY, connections: CONNECTIONS, duration: DURATION_S });
  stop = true;
  await scraper;
  const { latency } = result;
  return { round, scraping, rate: result.requests.average, p50: latency.p50, p99: latency.p99, max: latency.max, failed: result.non2xx + result.errors + result.timeouts, scrapes };
}

async function main(): Promise<number> {
  const bench = await openSendBenchStore({ METRICS_TOKEN });
  try {
    const port = await freePort();
    const child = startChild('mailroom', ['bin/mailroom.js', 'serve'], { ...process.env, ...bench.env, HOST, PORT: String(port) });
    const base = `http://${HOST}:${port}`;
    const headers = { 'x-api-key': bench.apiKey, 'content-type': 'application/json' };
    try {
      await waitReady(child, base);
      console.log(`bench: store ${bench.storeName}; ${BACKLOG} sends scheduled for tomorrow first`);
      const filling = performance.now();
      await fillBacklog(base, headers);
      const depth = Number(/^mailroom_delivery_queue_jobs (\d+)$/m.exec(await scrape(base))?.[1]);
      console.log(`bench: backlog written in ${((performance.now() - filling) / 1000).toFixed(1)} s; mailroom_delivery_queue_jobs ${depth}`);
      if (!(depth >= Math.min(BACKLOG, 100_000))) throw new BenchError(`the queue gauge read ${depth}, not the backlog`);
      await autocannon({ url: `${base}/v1/send`, method: 'POST', headers, body: SEND_BODY, connections: CONNECTIONS, duration: 2 });
      const runs: Run[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        for (const scraping of [false, true]) runs.push(await measure(base, headers, round, scraping));
      }
      console.log(`\nPOST /v1/send beside GET /metrics: ${CONNECTIONS} connections, ${DURATION_S} s a run, a scrape every ${SCRAPE_EVERY_MS} ms in the scraped runs, Node ${process.version}, store: ${bench.storeName}, as deployed (worker on)`);
      console.log('round  scraped  req/s (avg)  p50 ms  p99 ms  max ms  failed  scrapes  scrape median ms');
      for (const r of runs) {
        const scrapeCol = r.scraping ? `${String(r.scrapes.length).padStart(7)}  ${median(r.scrapes).toFixed(1).padStart(16)}` : `${'0'.padStart(7)}  ${'-'.padStart(16)}`;
        console.log(`${String(r.round).padEnd(6)} ${(r.scraping ? 'yes' : 'no').padEnd(8)} ${r.rate.toFixed(0).padStart(11)} ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)} ${String(r.max).padStart(7)} ${String(r.failed).padStart(7)}  ${scrapeCol}`);
      }
      const p99Of = (scraping: boolean) => median(runs.filter((r) => r.scraping === scraping).map((r) => r.p99));
      console.log(`\nmedian p99: ${p99Of(false)} ms without scrapes, ${p99Of(true)} ms with them`);
      if (runs.some((r) => r.failed > 0)) throw new BenchError('some sends were not answered 2xx');
      return 0;
    } finally {
      await stopChild(child);
    }
  } finally {
    await bench.close();
  }
}

runBench(main, 2 * ROUNDS * (DURATION_S + 5) * 1000 + READY_TIMEOUT_MS + 600_000);
