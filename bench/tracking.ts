/**
 * `npm run bench:tracking`: opens recorded per second through `GET /t/o/<token>`, and their p99, on one
 * real `mailroom serve` (bin/mailroom.js) as users run it, the delivery worker on, while the API keeps
 * answering: a client reads `GET /v1/send/stats/engagement` at a steady pace throughout, and its p99 is
 * printed beside the same client's on an idle server, measured in alternating rounds. The opens are of
 * 2,000 real tracked messages (each pixel as the worker built it), from browsers' user agents, so each
 * is a person's open and is written. After each round the bench checks that every open answered was
 * recorded (engagement counters), none dropped. The measured rounds offer 5,000 opens/s (BENCH_RATE); one
 * unpaced round after them shows the most the server records. Target: ≥ 5,000 opens/s recorded with p99
 * < 20 ms. See bench/README.md.
 */
import autocannon from 'autocannon';
import { simpleParser } from 'mailparser';
import { openSendBenchStore } from './send-bench-store.js';
import { BenchError, freePort, HOST, positiveNumber, READY_TIMEOUT_MS, runBench, startChild, stopChild, waitReady } from './bench-process.js';

const DURATION_S = positiveNumber('BENCH_DURATION', 10);
const WARMUP_S = positiveNumber('BENCH_WARMUP', 3, true);
const ROUNDS = positiveNumber('BENCH_ROUNDS', 3);
const CONNECTIONS = positiveNumber('BENCH_CONNECTIONS', 32);
const MESSAGES = 2_000;
const API_RATE = 50;
/** The opens offered per second in the measured rounds (the target's rate); an unpaced round shows the most. */
const OPEN_RATE = positiveNumber('BENCH_RATE', 5_000);
const TARGET_OPENS_PER_S = 5_000;
const TARGET_P99_MS = 20;
const FROM = 'Orbit Store <news@sandbox.mailroom.test>';
const AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0 Thunderbird/128.5.0',
];

type Json = { status: number; data: any };

async function call(base: string, apiKey: string, method: string, path: string, body?: unknown): Promise<Json> {
  const headers: Record<string, string> = { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
  return { status: res.status, data: ((await res.json()) as { data: unknown }).data };
}

/** 2,000 tracked messages through the batch API, each delivered by the worker; the path of each one's open pixel. */
async function trackedPixels(base: string, apiKey: string): Promise<string[]> {
  const html = (i: number) =>
    `<!doctype html><html><body><h1>December news</h1><p>Hello reader ${i}, <a href="https://orbit.example/news/december?r=${i}">read the issue</a>.</p></body></html>`;
  const ids: string[] = [];
  for (let start = 0; start < MESSAGES; start += 100) {
    const items = Array.from({ length: 100 }, (_, k) => ({ to: [`reader${start + k}@example.com`], from_email: FROM, subject: 'December news', html: html(start + k), track_opens: true }));
    const sent = await call(base, apiKey, 'POST', '/v1/send/batch', items);
    if (sent.status !== 200) throw new BenchError(`sending: HTTP ${sent.status} ${JSON.stringify(sent.data)}`);
    ids.push(...(sent.data as { message_id: string }[]).map((r) => r.message_id));
  }
  const pixels: string[] = [];
  for (const id of ids) {
    const deadline = Date.now() + 60_000;
    let raw: string | null = null;
    while (raw === null) {
      const content = await call(base, apiKey, 'GET', `/v1/messages/${id}/content`);
      raw = content.data?.raw ?? null;
      if (raw === null && Date.now() > deadline) throw new BenchError(`${id} was not delivered within a minute`);
      if (raw === null) await new Promise((r) => setTimeout(r, 50));
    }
    const pixel = /src="https?:\/\/[^/]+(\/t\/o\/[^"]+)"/.exec(String((await simpleParser(raw)).html))?.[1];
    if (!pixel) throw new BenchError(`${id} was sent without an open pixel`);
    pixels.push(pixel);
  }
  return pixels;
}

const recordedOpens = async (base: string, apiKey: string) => {
  const { data } = await call(base, apiKey, 'GET', '/v1/send/stats/engagement');
  return Number(data.opened) + Number(data.machine_opened);
};

/** The API's own client, at a steady pace: its latency is what "the API keeps answering" means. */
function apiClient(base: string, apiKey: string, duration: number) {
  return autocannon({ url: `${base}/v1/send/stats/engagement`, headers: { 'x-api-key': apiKey }, connections: 2, overallRate: API_RATE, duration });
}

interface Round {
  opensPerS: number;
  p99: number;
  apiP99: number;
  failures: number;
}

async function openRound(base: string, apiKey: string, pixels: string[], duration: number, paced = true): Promise<Round> {
  let next = 0;
  const before = await recordedOpens(base, apiKey);
  const [opens, api] = await Promise.all([
    autocannon({
      url: base,
      connections: CONNECTIONS,
      duration,
      ...(paced ? { overallRate: OPEN_RATE } : {}),
      requests: [{ method: 'GET', setupRequest: (request: any) => ({ ...request, path: pixels[next % pixels.length], headers: { 'user-agent': AGENTS[next++ % AGENTS.length] } }) }],
    }),
    apiClient(base, apiKey, duration),
  ]);
  const answered = opens.requests.total - opens.non2xx;
  // Written in batches every few milliseconds: wait for the last ones, then count what was recorded.
  const deadline = Date.now() + 10_000;
  let recorded = (await recordedOpens(base, apiKey)) - before;
  while (recorded < answered && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    recorded = (await recordedOpens(base, apiKey)) - before;
  }
  // Requests still in flight as the round ends are answered and recorded, but not counted by autocannon.
  if (recorded < answered) throw new BenchError(`${answered} opens answered, ${recorded} recorded`);
  return { opensPerS: recorded / duration, p99: opens.latency.p99, apiP99: api.latency.p99, failures: opens.non2xx + opens.errors + opens.timeouts + api.non2xx + api.errors };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<number> {
  // RATE_LIMIT_TRACKING_PER_MIN far above the bench's one client address, as the send benches do their limits:
  // in production the opens come from many readers' networks, and this measures recording them, not the limit.
  const bench = await openSendBenchStore({ RATE_LIMIT_TRACKING_PER_MIN: '100000000' });
  const port = await freePort();
  const base = `http://${HOST}:${port}`;
  const child = startChild('as deployed (worker on)', [...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []), 'bin/mailroom.js', 'serve'], { ...process.env, ...bench.env, HOST, PORT: String(port), PUBLIC_URL: base });
  try {
    console.log(`bench: store ${bench.storeName}, ${bench.where}`);
    await waitReady(child, base);
    const pixels = await trackedPixels(base, bench.apiKey);
    console.log(`  ${pixels.length} tracked messages delivered`);
    if (WARMUP_S > 0) {
      console.log(`  warm-up ${WARMUP_S} s (not counted)`);
      await openRound(base, bench.apiKey, pixels, WARMUP_S);
    }
    const rounds: Round[] = [];
    const idle: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const alone = await apiClient(base, bench.apiKey, Math.min(DURATION_S, 5));
      idle.push(alone.latency.p99);
      const r = await openRound(base, bench.apiKey, pixels, DURATION_S);
      console.log(`  round ${i + 1}  API alone p99 ${alone.latency.p99} ms | opens ${r.opensPerS.toFixed(0).padStart(6)}/s recorded, p99 ${r.p99} ms; API beside them p99 ${r.apiP99} ms`);
      rounds.push(r);
    }
    const opensPerS = median(rounds.map((r) => r.opensPerS));
    const p99 = median(rounds.map((r) => r.p99));
    const unpaced = await openRound(base, bench.apiKey, pixels, DURATION_S, false);
    console.log(`  unpaced   opens ${unpaced.opensPerS.toFixed(0).padStart(6)}/s recorded, p99 ${unpaced.p99} ms; API beside them p99 ${unpaced.apiP99} ms`);
    console.log(
      `\nGET /t/o/<token> of ${MESSAGES} tracked messages, browsers' user agents (each open a person's, written): as deployed (worker on), ` +
        `${CONNECTIONS} connections offering ${OPEN_RATE} opens/s, ${ROUNDS} rounds of ${DURATION_S} s, Node ${process.version}, store: ${bench.storeName}`,
    );
    console.log(`opens recorded at ${OPEN_RATE}/s offered (median)   ${opensPerS.toFixed(0).padStart(6)}/s   p99 ${p99} ms`);
    console.log(`opens recorded unpaced (the most, one round)  ${unpaced.opensPerS.toFixed(0).padStart(6)}/s   p99 ${unpaced.p99} ms`);
    console.log(`API at ${API_RATE} req/s, idle server (median)   p99 ${median(idle)} ms`);
    console.log(`API at ${API_RATE} req/s, beside the opens (median) p99 ${median(rounds.map((r) => r.apiP99))} ms`);
    const pass = opensPerS >= TARGET_OPENS_PER_S && p99 < TARGET_P99_MS;
    console.log(`\ntarget: ≥ ${TARGET_OPENS_PER_S} opens/s with p99 < ${TARGET_P99_MS} ms: ${pass ? 'PASS' : 'FAIL'}`);
    if ([...rounds, unpaced].some((r) => r.failures > 0)) throw new BenchError('some requests were not answered 2xx');
    return 0;
  } finally {
    await stopChild(child);
    await bench.close();
  }
}

// Bounded no matter what hangs: start-up, a stuck connection, a child ignoring SIGTERM.
runBench(main, (WARMUP_S + (ROUNDS + 1) * (DURATION_S + 5)) * 1000 * 2 + READY_TIMEOUT_MS + 180_000);
